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

package certreload

import (
	"crypto/tls"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// checkInterval bounds how often the files are looked at. Handshakes can
// come by the hundred a second while a renewal comes every few weeks, and a
// second's delay in picking one up costs nothing: the old certificate stays
// valid well past the moment its successor is written.
const checkInterval = time.Second

// Pair is a serving certificate read from a certificate and a key file and
// read again when either changes. Its GetCertificate goes in a
// tls.Config.
type Pair struct {
	certFile, keyFile string
	logger            klog.Logger
	clock             clock.PassiveClock
	checkEvery        time.Duration

	// current is what handshakes are given: always a pair that loaded.
	current atomic.Pointer[tls.Certificate]

	// mu is held by the one handshake that looks at the files; the others
	// go on with current rather than wait for it.
	mu      sync.Mutex
	checked time.Time
	files   filesState
	// readErr is the last error reading the files, so that it is logged
	// when it first happens rather than at every look.
	readErr string
}

// New loads the pair from certFile and keyFile. The first load failing is
// an error naming both files: a webhook that starts without a certificate
// would only fail every call later.
func New(logger klog.Logger, certFile, keyFile string) (*Pair, error) {
	return newPair(logger, certFile, keyFile, clock.RealClock{})
}

func newPair(logger klog.Logger, certFile, keyFile string, clk clock.PassiveClock) (*Pair, error) {
	p := &Pair{certFile: certFile, keyFile: keyFile, logger: logger, clock: clk, checkEvery: checkInterval}
	now := clk.Now()
	files, err := readFiles(certFile, keyFile, now)
	if err != nil {
		return nil, fmt.Errorf("loading the serving certificate %s and key %s: %w", certFile, keyFile, err)
	}
	cert, err := tls.X509KeyPair(files.certPEM, files.keyPEM)
	if err != nil {
		return nil, fmt.Errorf("loading the serving certificate %s and key %s: %w", certFile, keyFile, err)
	}
	p.current.Store(&cert)
	p.checked, p.files = now, files.state
	logger.Info("Loaded the serving certificate", certificateKeys(p, &cert)...)
	return p, nil
}

// GetCertificate returns the current pair, first looking at the files if
// the check interval has passed. It never fails: a pair that does not load
// leaves the previous one in service.
func (p *Pair) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	p.maybeReload()
	return p.current.Load(), nil
}

func certificateKeys(p *Pair, cert *tls.Certificate) []any {
	keys := []any{"certFile", p.certFile, "keyFile", p.keyFile}
	if cert.Leaf != nil {
		keys = append(keys, "subject", cert.Leaf.Subject.String(), "serial", cert.Leaf.SerialNumber.String(), "notAfter", cert.Leaf.NotAfter)
	}
	return keys
}
