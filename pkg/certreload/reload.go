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
)

// maybeReload looks at the files if the check interval has passed and
// puts a changed pair in service once it loads.
func (p *Pair) maybeReload() {
	if !p.mu.TryLock() {
		// Another handshake is looking; this one is served what is
		// current rather than waiting on the disk.
		return
	}
	defer p.mu.Unlock()
	now := p.clock.Now()
	if now.Sub(p.checked) < p.checkEvery {
		return
	}
	p.checked = now
	if cert, key, err := statFiles(p.certFile, p.keyFile); err == nil && p.files.unchanged(cert, key) {
		return
	}
	snap, err := readFiles(p.certFile, p.keyFile, now)
	if err != nil {
		// A file missing or empty is most often a writer caught half
		// way; the next look sees it done. Said once per distinct error
		// rather than at every look.
		if msg := err.Error(); msg != p.readErr {
			p.readErr = msg
			p.logger.Error(err, "Keeping the previous serving certificate: the files could not be read", "certFile", p.certFile, "keyFile", p.keyFile)
		}
		return
	}
	p.readErr = ""
	seen := p.files
	p.files = snap.state
	if seen.sameContents(snap.state) {
		// Touched, re-projected with the same contents, or a racy look
		// that found nothing new.
		return
	}
	cert, err := tls.X509KeyPair(snap.certPEM, snap.keyPEM)
	if err != nil {
		p.logger.Error(err, "Keeping the previous serving certificate: the new files do not load", "certFile", p.certFile, "keyFile", p.keyFile)
		return
	}
	p.current.Store(&cert)
	p.logger.Info("Reloaded the serving certificate", certificateKeys(p, &cert)...)
}
