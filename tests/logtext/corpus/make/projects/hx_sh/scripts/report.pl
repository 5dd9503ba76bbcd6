#!/usr/bin/perl
use strict;
use warnings;

my ($total, $rows) = (0, 0);
open(my $fh, '<', 'data/sales.csv') or die "cannot open data/sales.csv: $!";
<$fh>;
while (my $line = <$fh>) { chomp $line; my (undef, $amount) = split /,/, $line; $total += $amount; $rows++; }
print "read $rows rows\n";
die "sales total $total does not match the ledger total 250" if $total != 250;
print "ok\n";
