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
	"slices"

	"k8s.io/client-go/rest"
)

// Kubeconfig is the path of a kubeconfig for the cluster's admin (a static
// token in system:masters), usable by kubectl and any client.
func (c *Cluster) Kubeconfig() string { return c.layout.kubeconfig }

// RESTConfig returns a new copy of the admin's client configuration.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.restConfig) }

// APIServerURL is the https URL of kube-apiserver on loopback.
func (c *Cluster) APIServerURL() string { return c.layout.apiServerURL() }

// RunDir holds everything of this run: kubeconfig, pki, logs, etcd data.
func (c *Cluster) RunDir() string { return c.layout.runDir }

// LogDir holds one <component>.log per component; it is kept after Stop.
func (c *Cluster) LogDir() string { return c.layout.logDir }

// LogPath is the log file of a component: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler or kwok.
func (c *Cluster) LogPath(component string) string { return c.layout.logPath(component) }

// BinDir is where the cluster's binaries (kubectl among them) come from.
func (c *Cluster) BinDir() string { return c.opts.BinDir }

// InTreeBinDir is where the in-tree builds come from (Options.InTree),
// e2e.test of the patched tree among them.
func (c *Cluster) InTreeBinDir() string { return c.opts.InTreeBinDir }

// NodeNames are the kwok nodes the cluster created.
func (c *Cluster) NodeNames() []string { return slices.Clone(c.nodeNames) }

// CABundle is the PEM certificate of the cluster CA, which signed the
// apiserver's serving certificate and signs IssueServingCert's.
func (c *Cluster) CABundle() []byte { return c.creds.ca.PEM() }

// FrontProxyCAFile is the CA file of the client certificate the aggregator
// presents to extension apiservers (the apiserver's
// --requestheader-client-ca-file). Extension servers built on
// k8s.io/apiserver find it in the extension-apiserver-authentication
// ConfigMap by themselves; a hand-written one can read it here.
func (c *Cluster) FrontProxyCAFile() string { return c.layout.frontProxyCACert }

func (c *Cluster) binary(name string) string { return c.opts.binaryPath(name) }
