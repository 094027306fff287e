module github.com/besluitbron/besluitbron/sdk/native

go 1.26.8

require (
	github.com/besluitbron/besluitbron/sdk v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/hashicorp/go-plugin v1.8.0
	google.golang.org/grpc v1.61.0
)

require (
	github.com/fatih/color v1.13.0 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/yamux v0.1.2 // indirect
	github.com/mattn/go-colorable v0.1.12 // indirect
	github.com/mattn/go-isatty v0.0.17 // indirect
	github.com/oklog/run v1.1.0 // indirect
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20231106174013-bbf56f31fb17 // indirect
	google.golang.org/protobuf v1.36.6 // indirect
)

replace github.com/besluitbron/besluitbron/sdk => ../
