module github.com/besluitbron/besluitbron/plugins/example

go 1.26.8

require github.com/besluitbron/besluitbron/sdk v0.0.0

replace github.com/besluitbron/besluitbron/sdk => ../../sdk
