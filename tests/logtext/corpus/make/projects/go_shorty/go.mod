module example.com/shorty

go 1.19
