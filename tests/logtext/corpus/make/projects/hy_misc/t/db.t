use strict;
use warnings;
use Test::More tests => 3;

ok(1, 'config loaded');
my $dsn = $ENV{TEST_DSN} // '';
BAIL_OUT("TEST_DSN is not set: cannot reach the test database") unless $dsn;
ok(1, 'connected');
ok(1, 'migrated');
