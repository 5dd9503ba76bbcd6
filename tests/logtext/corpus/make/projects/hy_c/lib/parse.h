struct record { int fields; const char *name; };
int count_commas(const char *s);
struct record parse_line(const char *line);
