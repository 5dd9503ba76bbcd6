module example.com/goapp

go 1.19
