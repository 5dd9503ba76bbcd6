#!/usr/bin/perl
use strict;
use warnings;
use JSON::XS;

my $data = { passed => 41, failed => 1 };
print encode_json($data), "\n";
