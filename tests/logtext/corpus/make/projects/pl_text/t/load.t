use strict;
use warnings;
use Test::More tests => 2;
use lib 'lib';

use_ok('Text::Wrap2');
my @w = Text::Wrap2::wrap_words("a b c", 3);
is(scalar @w, 2, 'three words in width 3 make two lines');
