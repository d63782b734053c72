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

// Command dashboards writes kube-hpa's Grafana dashboard, built from typed
// Go with Grafana's foundation SDK so that a malformed panel does not
// compile. It is a module of its own so that the SDK stays out of the main
// module's dependencies; `make update-monitoring` writes its output to
// deploy/grafana/kube-hpa-dashboard.json and `make verify-monitoring` fails
// when that file is not what this code generates.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "", "write the dashboard JSON to this file instead of standard output")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "dashboards:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	b, err := render()
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// render is the dashboard's JSON, indented and ending in a newline, as it
// is committed.
func render() ([]byte, error) {
	d, err := newDashboard()
	if err != nil {
		return nil, fmt.Errorf("building the dashboard: %w", err)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
