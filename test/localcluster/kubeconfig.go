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
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const contextName = "kube-hpa-local"

// writeKubeconfig writes the kubeconfig that every component, kubectl and
// the user share: the admin token and the cluster CA inline, so the file
// works on its own.
func writeKubeconfig(l layout, creds credentials) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{
		Server:                   l.apiServerURL(),
		CertificateAuthorityData: creds.ca.PEM(),
	}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{Token: creds.adminToken}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName, Namespace: "default"}
	cfg.CurrentContext = contextName
	return clientcmd.WriteToFile(*cfg, l.kubeconfig)
}

// newRESTConfig is the client configuration of the kubeconfig, built
// directly so that it needs no file.
func newRESTConfig(l layout, creds credentials) *rest.Config {
	return &rest.Config{
		Host:            l.apiServerURL(),
		BearerToken:     creds.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: creds.ca.PEM()},
		// Tests create objects in bursts; the default 5 QPS makes them wait
		// on the client, not on the cluster.
		QPS:   100,
		Burst: 200,
	}
}
