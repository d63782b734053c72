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

package testca

import (
	"bytes"
	"crypto/x509"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func TestIssuedCertificatesVerifyForWhatTheyName(t *testing.T) {
	ca, err := New("test CA")
	if err != nil {
		t.Fatal(err)
	}
	other, err := New("other CA")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := ca.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := loaded.IssueServing(Serving{Hosts: []string{"localhost", "svc.example", "127.0.0.1", "::1"}, Serial: 7})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.IssueClient(Client{User: "admin", Groups: []string{"system:masters", "team"}})
	if err != nil {
		t.Fatal(err)
	}
	server, clientAuth := x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth
	tests := []struct {
		name   string
		pair   Pair
		pool   *x509.CertPool
		host   string
		usage  x509.ExtKeyUsage
		verify bool
	}{
		{"a serving leaf of the loaded CA, for a DNS name, against the saved CA", serving, ca.Pool(), "svc.example", server, true},
		{"a serving leaf for an IPv4 address", serving, ca.Pool(), "127.0.0.1", server, true},
		{"a serving leaf for an IPv6 address", serving, ca.Pool(), "::1", server, true},
		{"a serving leaf for a name it does not carry", serving, ca.Pool(), "other.example", server, false},
		{"a serving leaf for an address it does not carry", serving, ca.Pool(), "127.0.0.2", server, false},
		{"a serving leaf against another CA", serving, other.Pool(), "localhost", server, false},
		{"a serving leaf used as a client", serving, ca.Pool(), "", clientAuth, false},
		{"a client leaf", client, ca.Pool(), "", clientAuth, true},
		{"a client leaf against another CA", client, other.Pool(), "", clientAuth, false},
		{"a client leaf used to serve", client, ca.Pool(), "", server, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.pair.TLSCertificate(); err != nil {
				t.Fatalf("the certificate and the key do not match: %v", err)
			}
			_, err := tc.pair.Leaf.Verify(x509.VerifyOptions{Roots: tc.pool, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if got := err == nil; got != tc.verify {
				t.Errorf("verifies: %v (%v), want %v", got, err, tc.verify)
			}
		})
	}
	if got := serving.Leaf.SerialNumber.Int64(); got != 7 {
		t.Errorf("serving serial %d, want 7", got)
	}
	if got := serving.Leaf.Subject.CommonName; got != "localhost" {
		t.Errorf("serving common name %q, want the first host", got)
	}
	// The organizations are one set in the subject: their order is DER's.
	if got := client.Leaf.Subject; got.CommonName != "admin" || !slices.Equal(slices.Sorted(slices.Values(got.Organization)), []string{"system:masters", "team"}) {
		t.Errorf("client subject %v, want user admin in groups system:masters and team", got)
	}
}

// TestWriteSecretVolumeNeverShowsAMixedPair: during 200 swaps a reader
// reads the old or the new pair's files whole, never anything else.
func TestWriteSecretVolumeNeverShowsAMixedPair(t *testing.T) {
	ca, err := New("test CA")
	if err != nil {
		t.Fatal(err)
	}
	var pairs [2]map[string][]byte
	for i := range pairs {
		p, err := ca.IssueServing(Serving{Hosts: []string{"localhost"}})
		if err != nil {
			t.Fatal(err)
		}
		pairs[i] = p.SecretData()
	}
	dir := filepath.Join(t.TempDir(), "volume")
	if err := WriteSecretVolume(dir, pairs[0]); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads int
	var bad []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for name := range pairs[0] {
				got, err := os.ReadFile(filepath.Join(dir, name))
				// A read that followed ..data to the generation being
				// removed finds nothing there, as with the kubelet's
				// volumes: a reader of certificates retries on the next
				// event. What must never be read is anything but one
				// whole pair's file.
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil || !(bytes.Equal(got, pairs[0][name]) || bytes.Equal(got, pairs[1][name])) {
					bad = append(bad, name+": "+errString(err))
				}
				reads++
			}
		}
	}()
	const swaps = 200
	var firstGeneration string
	for i := 1; i <= swaps; i++ {
		if i == 1 {
			if firstGeneration, err = os.Readlink(filepath.Join(dir, secretVolumeData)); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteSecretVolume(dir, pairs[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if reads == 0 {
		t.Error("the reader did not read during the swaps")
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d reads during %d swaps saw neither pair, first: %s", len(bad), reads, swaps, bad[0])
	}

	for name, want := range pairs[swaps%2] {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil || target != filepath.Join(secretVolumeData, name) {
			t.Errorf("%s links to %q (%v), want %s", name, target, err, filepath.Join(secretVolumeData, name))
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s does not read the last pair written (%v)", name, err)
		}
	}
	for _, gone := range []string{firstGeneration, secretVolumeDataTmp} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is left in the volume (%v)", gone, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 { // tls.crt, tls.key, ..data and one generation
		t.Errorf("the volume holds %d entries, want tls.crt, tls.key, ..data and one generation", len(entries))
	}
}

func errString(err error) string {
	if err == nil {
		return "other content"
	}
	return err.Error()
}
