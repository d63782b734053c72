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
		CertificateAuthorityData: creds.ca.certPEM,
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
		TLSClientConfig: rest.TLSClientConfig{CAData: creds.ca.certPEM},
		// Tests create objects in bursts; the default 5 QPS makes them wait
		// on the client, not on the cluster.
		QPS:   100,
		Burst: 200,
	}
}
