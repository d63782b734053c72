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
	"maps"
	"slices"
	"strconv"
	"strings"
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

// defaultFeatureGates are passed to kube-apiserver and
// kube-controller-manager unless Options.FeatureGates says otherwise.
// HPAScaleToZero is beta and on by default from v1.37; it is named so that
// an older control plane (v1.36, alpha and off: make e2e-skew and the
// in-tree build) accepts minReplicas: 0 as well.
func defaultFeatureGates() map[string]bool { return map[string]bool{"HPAScaleToZero": true} }

// featureGatesFlag is --feature-gates of the defaults overlaid with
// gates, sorted so that a run's command lines are the same every time.
func featureGatesFlag(gates map[string]bool) string {
	all := defaultFeatureGates()
	maps.Copy(all, gates)
	pairs := make([]string, 0, len(all))
	for _, name := range slices.Sorted(maps.Keys(all)) {
		pairs = append(pairs, fmt.Sprintf("%s=%t", name, all[name]))
	}
	return "--feature-gates=" + strings.Join(pairs, ",")
}

func apiServerFlags(l layout, o Options) []string {
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
		featureGatesFlag(o.FeatureGates),
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

// controllersFlag enables every default controller but, unless
// hpaController, the HPA controller: kube-hpa replaces it, and two would
// fight. One flag either way, as pflag appends repeated string slices.
func controllersFlag(hpaController bool) string {
	if hpaController {
		return "--controllers=*"
	}
	return "--controllers=*,-horizontalpodautoscaling"
}

// hpaControllerFlags are the flags of the set fields of h.
func hpaControllerFlags(h HPAControllerFlags) []string {
	var out []string
	if h.SyncPeriod > 0 {
		out = append(out, "--horizontal-pod-autoscaler-sync-period="+h.SyncPeriod.String())
	}
	if h.DownscaleStabilization != nil {
		out = append(out, "--horizontal-pod-autoscaler-downscale-stabilization="+h.DownscaleStabilization.String())
	}
	if h.Tolerance != nil {
		out = append(out, "--horizontal-pod-autoscaler-tolerance="+strconv.FormatFloat(*h.Tolerance, 'f', -1, 64))
	}
	if h.CPUInitializationPeriod > 0 {
		out = append(out, "--horizontal-pod-autoscaler-cpu-initialization-period="+h.CPUInitializationPeriod.String())
	}
	if h.InitialReadinessDelay > 0 {
		out = append(out, "--horizontal-pod-autoscaler-initial-readiness-delay="+h.InitialReadinessDelay.String())
	}
	if h.ConcurrentSyncs > 0 {
		out = append(out, "--concurrent-horizontal-pod-autoscaler-syncs="+strconv.Itoa(h.ConcurrentSyncs))
	}
	return out
}

func controllerManagerFlags(l layout, o Options) []string {
	flags := []string{
		"--kubeconfig=" + l.kubeconfig,
		"--authentication-kubeconfig=" + l.kubeconfig,
		"--authorization-kubeconfig=" + l.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(l.controllerManagerPort),
		controllersFlag(o.HPAController),
		"--root-ca-file=" + l.caCert,
		"--service-account-private-key-file=" + l.serviceAccountKey,
		"--cluster-signing-cert-file=" + l.caCert,
		"--cluster-signing-key-file=" + l.caKey,
		"--leader-elect=false",
		// One controller manager, one fast machine-local apiserver: the
		// default 20 QPS only slows Deployments down in tests.
		"--kube-api-qps=100",
		"--kube-api-burst=200",
		featureGatesFlag(o.FeatureGates),
	}
	if o.UseServiceAccountCredentials {
		flags = append(flags, "--use-service-account-credentials=true")
	}
	return append(flags, hpaControllerFlags(o.HPA)...)
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
		// The nodes' address and kubelet port are kwok's own server, on
		// loopback: metrics-server scrapes each node's /metrics/resource
		// there, as it scrapes a kubelet. No other traffic goes to a fake
		// node or pod.
		"--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(l.kwokPort),
		"--server-address=127.0.0.1:" + strconv.Itoa(l.kwokPort),
		"--tls-cert-file=" + l.kwokCert,
		"--tls-private-key-file=" + l.kwokKey,
		"--cidr=10.244.0.0/16",
	}
}
