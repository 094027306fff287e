module github.com/besluitbron/besluitbron/sdk

go 1.26.8
