module github.com/profsim/profsim

go 1.26.0

require (
	github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	gonum.org/v1/gonum v0.17.0
)
