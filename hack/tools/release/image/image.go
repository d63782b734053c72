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

// Package image builds hpa-controller-manager's multi-architecture image
// without a Docker daemon: a base layer of CA certificates and a non-root
// passwd entry, the static binary on top, one image per platform, and an
// OCI image index over them, written as an OCI image layout tarball.
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// UID is the user the image runs as: distroless's nonroot, which
// deploy/deployment.yaml's securityContext names too.
const UID = 65532

// Options says what goes into the image.
type Options struct {
	// Binaries maps a platform ("linux/amd64") to its static binary.
	Binaries map[string]string
	// CACertificates is a PEM bundle, such as Debian's
	// /etc/ssl/certs/ca-certificates.crt.
	CACertificates string
	// Entrypoint is the binary's path in the image.
	Entrypoint string
	// Version labels the images (org.opencontainers.image.version).
	Version string
	// Source labels the images (org.opencontainers.image.source).
	Source string
	// Created is the images' creation time and every file's mtime, so that
	// the same inputs give the same digests.
	Created time.Time
}

// Build returns the index of one image per platform of o.Binaries.
func Build(o Options) (v1.ImageIndex, error) {
	certs, err := os.ReadFile(o.CACertificates)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificates: %w", err)
	}
	base, err := layer(o.Created, baseFiles(certs))
	if err != nil {
		return nil, err
	}
	platforms := make([]string, 0, len(o.Binaries))
	for p := range o.Binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)

	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		platform, err := v1.ParsePlatform(p)
		if err != nil {
			return nil, err
		}
		img, err := platformImage(o, *platform, base, o.Binaries[p])
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: platform},
		})
	}
	return idx, nil
}

func platformImage(o Options, platform v1.Platform, base v1.Layer, binary string) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	top, err := layer(o.Created, []file{{name: o.Entrypoint, mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, base, top); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS = platform.OS
	cf.Architecture = platform.Architecture
	cf.Variant = platform.Variant
	cf.Created = v1.Time{Time: o.Created}
	cf.Config.User = fmt.Sprintf("%d:%d", UID, UID)
	cf.Config.Entrypoint = []string{o.Entrypoint}
	cf.Config.Cmd = nil
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "hpa-controller-manager",
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.source":   o.Source,
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	return mutate.ConfigFile(img, cf)
}

type file struct {
	name string
	mode int64
	data []byte // nil for a directory
}

// baseFiles is the minimal root: what a Go binary needs to reach an API
// server over TLS (the CA bundle) and to name its user (passwd, group),
// and a writable-by-nobody /tmp for the read-only root filesystem's mounts.
func baseFiles(certs []byte) []file {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, UID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID)
	return []file{
		{name: "etc", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl", mode: 0o755},
		{name: "etc/ssl/certs", mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{name: "home", mode: 0o755},
		{name: "home/nonroot", mode: 0o700},
		{name: "tmp", mode: 0o1777},
	}
}

// layer is an uncompressed-then-gzipped OCI layer of files, every header
// fixed to mtime and root ownership (home/nonroot excepted) so that the
// digest depends on the content only.
func layer(mtime time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		name := path.Clean("/" + f.name)[1:]
		h := &tar.Header{Name: name, Mode: f.mode, ModTime: mtime, Format: tar.FormatPAX}
		if name == "home/nonroot" {
			h.Uid, h.Gid = UID, UID
		}
		if f.data == nil {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
