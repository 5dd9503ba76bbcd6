use strict;
use warnings;
use Test::More tests => 2;
ok(1, 'one');
ok(2, 'two');
