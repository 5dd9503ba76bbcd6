module example.com/gosvc

go 1.19
