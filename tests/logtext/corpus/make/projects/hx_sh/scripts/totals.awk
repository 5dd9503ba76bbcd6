BEGIN { FS = "," }
NR > 1 { total += $2; by[$1] += $2 }
END {
    for (r in by) printf "%s %d\n", r, by[r]
    printf "total %d\n", total
    if (total != 250) { print "total mismatch" > "/dev/stderr"; exit 1 }
