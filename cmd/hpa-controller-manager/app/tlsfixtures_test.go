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

package app

import (
	"crypto/tls"
	"path/filepath"
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/test/testca"
)

// newTestCA makes the CA of a test: every leaf it issues is trusted by a
// client holding its Pool, so a renewal changes what is served without
// changing what verifies.
func newTestCA(t testing.TB) *testca.CA {
	t.Helper()
	ca, err := testca.New("kube-hpa test CA")
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// issueServing signs a serving leaf of serial, which is what a client sees
// of the certificate it was served, for dnsNames, or for 127.0.0.1 and
// localhost when none are given.
func issueServing(t testing.TB, ca *testca.CA, serial int64, dnsNames ...string) testca.Pair {
	t.Helper()
	if len(dnsNames) == 0 {
		dnsNames = []string{"localhost", "127.0.0.1"}
	}
	pair, err := ca.IssueServing(testca.Serving{Hosts: dnsNames, Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

// issueClient signs a client certificate of serial for user in groups.
func issueClient(t testing.TB, ca *testca.CA, serial int64, user string, groups ...string) tls.Certificate {
	t.Helper()
	pair, err := ca.IssueClient(testca.Client{User: user, Groups: groups, Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := pair.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// secretVolume is a directory laid out as the kubelet projects a Secret,
// which update replaces in one step (testca.WriteSecretVolume).
type secretVolume struct{ dir string }

// newSecretVolume projects p into a new temporary directory.
func newSecretVolume(t testing.TB, p testca.Pair) *secretVolume {
	t.Helper()
	v := &secretVolume{dir: t.TempDir()}
	v.update(t, p)
	return v
}

// certFile and keyFile are the paths a server is given, through the
// symlinks.
func (v *secretVolume) certFile() string { return filepath.Join(v.dir, testca.TLSCertKey) }
func (v *secretVolume) keyFile() string  { return filepath.Join(v.dir, testca.TLSKeyKey) }

// update replaces both files with p as the kubelet does when the Secret
// changes.
func (v *secretVolume) update(t testing.TB, p testca.Pair) {
	t.Helper()
	if err := testca.WriteSecretVolume(v.dir, p.SecretData()); err != nil {
		t.Fatal(err)
	}
}

// servedSerial opens a new connection, a new handshake, and returns the
// serial of the leaf the server presented.
func servedSerial(t testing.TB, addr string, cfg *tls.Config) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// serialOf is the serial a client is served with p.
func serialOf(p testca.Pair) int64 { return p.Leaf.SerialNumber.Int64() }

// waitForSerial dials new connections until one is served the leaf of
// serial: a reload is an event of its own, seen by the server through a
// file watch (a periodic look at the files backs it up once a minute),
// so the test waits on what is served, with a generous ceiling only
// there to end a broken test.
func waitForSerial(t testing.TB, addr string, cfg *tls.Config, serial int64) {
	t.Helper()
	const ceiling = 3 * time.Minute
	deadline := time.Now().Add(ceiling)
	for got := servedSerial(t, addr, cfg); got != serial; got = servedSerial(t, addr, cfg) {
		if time.Now().After(deadline) {
			t.Fatalf("still served serial %d after %v, want %d", got, ceiling, serial)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
