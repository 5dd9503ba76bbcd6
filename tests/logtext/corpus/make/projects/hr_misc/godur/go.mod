module example.com/godur

go 1.19
