/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command plot draws the scaling scenario of an hpa-bench result (the
// JSON that test/bench writes, latest.json by default) as an SVG: the
// controllers' peak RSS and their CPU per 1,000 reconciles against the
// number of HPAs, one line per controller, the machine in the title.
//
// It is a module of its own, so that its plotting library stays out of
// kube-hpa's dependencies; hpa-bench runs it (go run .) after a run with
// -scaling, and it redraws a plot from any result:
//
//	cd test/bench/plot && go run . -in ../../../_output/bench/latest.json -out /tmp/scaling.svg
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	flags := flag.NewFlagSet("plot", flag.ContinueOnError)
	in := flags.String("in", filepath.Join("..", "..", "..", "_output", "bench", "latest.json"), "hpa-bench's JSON result, with a scaling scenario.")
	out := flags.String("out", "", "SVG file to write; default scaling.svg beside -in.")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(filepath.Dir(*in), "scaling.svg")
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	s, err := readScaling(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var svg bytes.Buffer
	if err := drawScaling(s, &svg); err != nil {
		return err
	}
	return os.WriteFile(*out, svg.Bytes(), 0o644)
}
