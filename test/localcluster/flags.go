package localcluster

import (
	"fmt"
	"strconv"
)

// The flags of each component, derived from the layout alone so that a
// unit test can pin them without starting anything.

func etcdFlags(l layout) []string {
	client := l.etcdURL()
	peer := fmt.Sprintf("http://127.0.0.1:%d", l.etcdPeerPort)
	return []string{
		"--name=localcluster",
		"--data-dir=" + l.etcdDataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=localcluster=" + peer,
		// Throwaway data: skip fsync, which dominates etcd's latency on a
		// shared disk and slows every write of the apiserver.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func apiServerFlags(l layout) []string {
	return []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.apiServerPort),
		"--etcd-servers=" + l.etcdURL(),
		"--cert-dir=" + l.pkiDir,
		"--tls-cert-file=" + l.apiServerCert,
		"--tls-private-key-file=" + l.apiServerKey,
		"--token-auth-file=" + l.tokenFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-key-file=" + l.serviceAccountPublicKey,
		"--service-account-signing-key-file=" + l.serviceAccountKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + serviceCIDR,
		// The kubernetes Service would get 127.0.0.1 as its endpoint, which
		// Endpoints validation rejects; nothing here needs that endpoint.
		"--endpoint-reconciler-type=none",
		"--feature-gates=HPAScaleToZero=true",
		// The aggregator's identity towards extension servers (metrics
		// adapters), which read these from the
		// extension-apiserver-authentication ConfigMap.
		"--requestheader-client-ca-file=" + l.frontProxyCACert,
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + l.frontProxyClientCert,
		"--proxy-client-key-file=" + l.frontProxyClientKey,
		"--client-ca-file=" + l.caCert,
	}
}

func controllerManagerFlags(l layout) []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--authentication-kubeconfig=" + l.kubeconfig,
		"--authorization-kubeconfig=" + l.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.controllerManagerPort),
		// kube-hpa replaces the in-tree HPA controller; two would fight.
		"--controllers=*,-horizontalpodautoscaling",
		"--root-ca-file=" + l.caCert,
		"--service-account-private-key-file=" + l.serviceAccountKey,
		"--cluster-signing-cert-file=" + l.caCert,
		"--cluster-signing-key-file=" + l.caKey,
		"--leader-elect=false",
		// One controller manager, one fast machine-local apiserver: the
		// default 20 QPS only slows Deployments down in tests.
		"--kube-api-qps=100",
		"--kube-api-burst=200",
		"--feature-gates=HPAScaleToZero=true",
	}
}

func schedulerFlags(l layout) []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--authentication-kubeconfig=" + l.kubeconfig,
		"--authorization-kubeconfig=" + l.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.schedulerPort),
		"--leader-elect=false",
	}
}

// kwokNodeAnnotation marks the nodes kwok manages; nodes created by
// Cluster.CreateNodes carry it.
const (
	kwokNodeAnnotationKey   = "kwok.x-k8s.io/node"
	kwokNodeAnnotationValue = "fake"
)

func kwokFlags(l layout) []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--config=" + l.kwokConfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotationKey + "=" + kwokNodeAnnotationValue,
		// No traffic ever goes to a fake node or pod; a loopback node IP
		// keeps it so even if something tries.
		"--node-ip=127.0.0.1",
		"--cidr=10.244.0.0/16",
	}
}
