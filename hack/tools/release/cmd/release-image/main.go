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

// Command release-image writes hpa-controller-manager's multi-architecture
// image as an OCI image layout tarball (hack/release.sh runs it).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kube-hpa/kube-hpa/hack/tools/release/image"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "release-image:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		binaries = flag.String("binaries", "", "comma-separated platform=path pairs, e.g. linux/amd64=dist/bin/linux-amd64/hpa-controller-manager")
		certs    = flag.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of CA certificates (Debian's ca-certificates)")
		version  = flag.String("version", "", "the release's version")
		ref      = flag.String("ref", "", "the image's name in index.json (org.opencontainers.image.ref.name)")
		source   = flag.String("source", "https://github.com/kube-hpa/kube-hpa", "org.opencontainers.image.source label")
		epoch    = flag.Int64("source-date-epoch", 0, "creation time of the image and its files, in seconds since the epoch")
		out      = flag.String("out", "", "the OCI image layout tarball to write")
	)
	flag.Parse()
	if *binaries == "" || *version == "" || *out == "" {
		return fmt.Errorf("-binaries, -version and -out are required")
	}
	bins := map[string]string{}
	for _, pair := range strings.Split(*binaries, ",") {
		platform, path, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("-binaries: %q is not platform=path", pair)
		}
		bins[platform] = path
	}
	if *ref == "" {
		*ref = *version
	}
	created := time.Unix(*epoch, 0).UTC()
	idx, err := image.Build(image.Options{
		Binaries:       bins,
		CACertificates: *certs,
		Entrypoint:     "/hpa-controller-manager",
		Version:        *version,
		Source:         *source,
		Created:        created,
	})
	if err != nil {
		return err
	}
	return image.WriteLayoutTarball(idx, *ref, created, *out)
}
