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

// Command release-sbom writes the SPDX JSON SBOM of a Go binary from its
// embedded build information (hack/release.sh runs it).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kube-hpa/kube-hpa/hack/tools/release/sbom"
)

func main() {
	binary := flag.String("binary", "", "the Go binary to describe")
	name := flag.String("name", "hpa-controller-manager", "the program's name in the SBOM")
	version := flag.String("version", "", "the release's version")
	epoch := flag.Int64("source-date-epoch", 0, "the document's creation time, in seconds since the epoch")
	out := flag.String("out", "", "the SPDX JSON file to write")
	flag.Parse()
	if err := run(*binary, *name, *version, time.Unix(*epoch, 0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "release-sbom:", err)
		os.Exit(1)
	}
}

func run(binary, name, version string, created time.Time, out string) error {
	if binary == "" || version == "" || out == "" {
		return fmt.Errorf("-binary, -version and -out are required")
	}
	doc, err := sbom.FromBinary(sbom.Options{Binary: binary, Name: name, Version: version, Created: created})
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := sbom.Write(f, doc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
