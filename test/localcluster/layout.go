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

package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// layout is where one run keeps its files and which ports its components
// listen on; the flags of every component are derived from it alone.
type layout struct {
	runDir, logDir, pkiDir, etcdDataDir string

	kubeconfig string
	kwokConfig string
	tokenFile  string

	caCert, caKey                              string
	apiServerCert, apiServerKey                string
	serviceAccountKey, serviceAccountPublicKey string
	frontProxyCACert                           string
	frontProxyClientCert, frontProxyClientKey  string
	kwokCert, kwokKey                          string
	metricsServerCert, metricsServerKey        string

	etcdClientPort, etcdPeerPort int
	apiServerPort                int
	controllerManagerPort        int
	schedulerPort                int
	// kwokPort is where kwok serves every fake node's kubelet endpoints
	// (the nodes' status names it), metricsServerPort metrics-server's
	// secure port.
	kwokPort          int
	metricsServerPort int
}

// newLayout creates a fresh run directory under outputDir. Its name sorts
// by start time and carries the PID, so concurrent runs never collide and
// the latest one is easy to find.
func newLayout(outputDir string, now time.Time) (layout, error) {
	if err := os.MkdirAll(outputDir, 0o755); err != nil {
		return layout{}, err
	}
	prefix := fmt.Sprintf("%s-%d-", now.Format("20060102-150405"), os.Getpid())
	runDir, err := os.MkdirTemp(outputDir, prefix)
	if err != nil {
		return layout{}, err
	}
	ports, err := FreePorts(7)
	if err != nil {
		return layout{}, err
	}
	pki := filepath.Join(runDir, "pki")
	l := layout{
		runDir:                  runDir,
		logDir:                  filepath.Join(runDir, "logs"),
		pkiDir:                  pki,
		etcdDataDir:             filepath.Join(runDir, "etcd-data"),
		kubeconfig:              filepath.Join(runDir, "kubeconfig"),
		kwokConfig:              filepath.Join(runDir, "kwok.yaml"),
		tokenFile:               filepath.Join(pki, "tokens.csv"),
		caCert:                  filepath.Join(pki, "ca.crt"),
		caKey:                   filepath.Join(pki, "ca.key"),
		apiServerCert:           filepath.Join(pki, "apiserver.crt"),
		apiServerKey:            filepath.Join(pki, "apiserver.key"),
		serviceAccountKey:       filepath.Join(pki, "sa.key"),
		serviceAccountPublicKey: filepath.Join(pki, "sa.pub"),
		frontProxyCACert:        filepath.Join(pki, "front-proxy-ca.crt"),
		frontProxyClientCert:    filepath.Join(pki, "front-proxy-client.crt"),
		frontProxyClientKey:     filepath.Join(pki, "front-proxy-client.key"),
		kwokCert:                filepath.Join(pki, "kwok.crt"),
		kwokKey:                 filepath.Join(pki, "kwok.key"),
		metricsServerCert:       filepath.Join(pki, "metrics-server.crt"),
		metricsServerKey:        filepath.Join(pki, "metrics-server.key"),
		etcdClientPort:          ports[0],
		etcdPeerPort:            ports[1],
		apiServerPort:           ports[2],
		controllerManagerPort:   ports[3],
		schedulerPort:           ports[4],
		kwokPort:                ports[5],
		metricsServerPort:       ports[6],
	}
	for _, dir := range []string{l.logDir, l.pkiDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return layout{}, err
		}
	}
	return l, nil
}

func (l layout) logPath(component string) string {
	return filepath.Join(l.logDir, component+".log")
}

func (l layout) apiServerURL() string {
	return fmt.Sprintf("https://127.0.0.1:%d", l.apiServerPort)
}

func (l layout) etcdURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d", l.etcdClientPort)
}
