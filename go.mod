module github.com/ccpipe/ccpipe

go 1.26.0

require (
	github.com/itchyny/gojq v0.12.20
	github.com/klauspost/compress v1.20.4
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.41.0
	golang.org/x/text v0.21.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
