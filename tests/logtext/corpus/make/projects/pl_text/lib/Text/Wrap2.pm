package Text::Wrap2;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(wrap_words title_case);

sub wrap_words {
    my ($text, $width) = @_;
    my @lines;
    my $line = '';
    for my $word (split /\s+/, $text) {
        if (length($line) + length($word) + 1 > $width && length $line) {
            push @lines, $line;
            $line = $word;
        } else {
            $line = length $line ? "$line $word" : $word;
        }
    }
    push @lines, $line if length $line;
    return @lines;
}

sub title_case {
    my ($text) = @_;
    return join ' ', map { ucfirst } split / /, $text;
}

1;
