use strict;
use warnings;

my %limits = (cpu => 2, memory => "4Gi");
foreach my $key (sort keys %limits) {
    print "$key=$limits{$key}\n"
}
print "done\n"
my $x = 1;
