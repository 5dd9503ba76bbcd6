use strict;
use warnings;
use Test::More tests => 5;
use lib 'lib';
use Text::Wrap2 qw(wrap_words title_case);

is_deeply([wrap_words("the quick brown fox", 10)], ["the quick", "brown fox"], 'wraps at width');
is_deeply([wrap_words("", 10)], [], 'empty text gives no lines');
is(title_case("hello world"), "Hello World", 'title case');
is(title_case("hello  world"), "Hello  World", 'title case keeps double spaces');
is(title_case("the end-of-line marker"), "The End-Of-Line Marker", 'title case capitalises after hyphens');
