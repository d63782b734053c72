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

package integration

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app"
	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/options"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The install's names (deploy/): the controller's ServiceAccount, which
// deploy/rbac.yaml binds for the delegation, and the scrapers' ClusterRole.
const (
	controllerNamespace = "kube-hpa-system"
	controllerAccount   = "hpa-controller-manager"
	metricsReaderRole   = "kube-hpa-metrics-reader"
)

// TestSecurePortDelegatesToTheAPIServer runs hpa-controller-manager as the
// install does (its ServiceAccount under deploy/rbac.yaml, the secure port
// on, no plain port) and scrapes it as Prometheus would, with
// ServiceAccount tokens: the API server reviews each token and decides
// with RBAC, through deploy/metrics-reader.yaml, who reads /metrics.
//
// The replica stands by (another holder keeps its Lease), so that it
// never runs the controllers against the HPAs of the shared cluster: a
// standby serves the same port.
func TestSecurePortDelegatesToTheAPIServer(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	kube, err := kubernetes.NewForConfig(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	installRBAC(t, cluster)

	ns := fmt.Sprintf("secure-metrics-%d", time.Now().UnixNano())
	if err := cluster.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	reader := createServiceAccount(ctx, t, kube, ns, "prometheus")
	bindMetricsReader(ctx, t, kube, ns, "prometheus")
	stranger := createServiceAccount(ctx, t, kube, ns, "stranger")

	lease := holdLease(ctx, t, kube, ns)
	addr := startStandbyReplica(ctx, t, cluster, kube, lease)

	cases := []struct {
		name     string
		path     string
		token    string // "": none
		wantCode int
		wantBody string
	}{
		{name: "a token bound to the metrics reader role scrapes /metrics", path: "/metrics", token: reader,
			wantCode: http.StatusOK, wantBody: "# TYPE"},
		{name: "a token without the role is forbidden /metrics", path: "/metrics", token: stranger,
			wantCode: http.StatusForbidden, wantBody: fmt.Sprintf(`system:serviceaccount:%s:stranger\" cannot get path \"/metrics\"`, ns)},
		{name: "no token is forbidden /metrics", path: "/metrics",
			wantCode: http.StatusForbidden, wantBody: `system:anonymous\" cannot get path \"/metrics\"`},
		{name: "a token the API server does not know is unauthorized", path: "/metrics", token: "not-a-token",
			wantCode: http.StatusUnauthorized},
		{name: "no token reads /healthz", path: "/healthz", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "a token without the role reads /readyz", path: "/readyz", token: stranger, wantCode: http.StatusOK, wantBody: "ok"},
	}
	// The port's certificate is self-signed (no --tls-cert-file): the
	// tokens, not the certificate, are what is under test.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// RBAC reaches the authorizer through an informer, and the
			// replica caches a decision for 10 s: a fresh binding may
			// take that long to be seen.
			var code int
			var body string
			deadline := time.Now().Add(30 * time.Second)
			for {
				code, body = scrape(ctx, t, client, "https://"+addr+tc.path, tc.token)
				if code == tc.wantCode || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Second)
			}
			if code != tc.wantCode {
				t.Errorf("GET %s answered %d, want %d; body:\n%s", tc.path, code, tc.wantCode, body)
			}
			if !strings.Contains(body, tc.wantBody) {
				t.Errorf("GET %s body does not contain %q:\n%s", tc.path, tc.wantBody, body)
			}
		})
	}
}

// installRBAC applies the install's namespace, its RBAC and the metrics
// reader ClusterRole, as kubectl apply -k deploy would.
func installRBAC(t *testing.T, cluster *localcluster.Cluster) {
	t.Helper()
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"namespace.yaml", "rbac.yaml", "metrics-reader.yaml"} {
		if out, err := cluster.Kubectl("apply", "-f", filepath.Join(root, "deploy", f)); err != nil {
			t.Fatalf("applying deploy/%s: %v\n%s", f, err, out)
		}
	}
}

// createServiceAccount creates a ServiceAccount and returns a token of it.
func createServiceAccount(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if _, err := kube.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return token(ctx, t, kube, ns, name)
}

func token(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string) string {
	t.Helper()
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, tr, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token of %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// bindMetricsReader binds the install's metrics reader ClusterRole to a
// ServiceAccount, as an operator does for Prometheus.
func bindMetricsReader(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string) {
	t.Helper()
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: metricsReaderRole + ":" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
}

// holdLease creates a Lease in the controller's namespace held, for an
// hour, by another identity, and returns its name.
func holdLease(ctx context.Context, t *testing.T, kube kubernetes.Interface, suffix string) string {
	t.Helper()
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: controllerNamespace, Name: "hpa-controller-manager-" + suffix},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("another-replica"),
			LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime:          &metav1.MicroTime{Time: time.Now()},
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}
	if _, err := kube.CoordinationV1().Leases(controllerNamespace).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoordinationV1().Leases(controllerNamespace).Delete(context.Background(), lease.Name, metav1.DeleteOptions{})
	})
	return lease.Name
}

// startStandbyReplica runs hpa-controller-manager in the test process, as
// the install's ServiceAccount, with the secure port on a free loopback
// port and the plain port off (their defaults but for the port number),
// waits until it serves, and returns its address. It stops with the test.
func startStandbyReplica(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, kube kubernetes.Interface, lease string) string {
	t.Helper()
	kubeconfig := writeTokenKubeconfig(t, cluster, token(ctx, t, kube, controllerNamespace, controllerAccount))
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	o, err := options.NewOptions()
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("hpa-controller-manager", pflag.ContinueOnError)
	for _, section := range o.Flags().FlagSets {
		fs.AddFlagSet(section)
	}
	if err := fs.Parse([]string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[0]),
		"--leader-elect-resource-namespace=" + controllerNamespace,
		"--leader-elect-resource-name=" + lease,
	}); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- app.Run(runCtx, cfg) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("hpa-controller-manager ended with %v", err)
		}
	})

	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("hpa-controller-manager ended before serving: %v", err)
		default:
		}
		resp, err := client.Get("https://" + addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the secure port %s did not serve /healthz within 30s (last error %v)", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writeTokenKubeconfig writes a kubeconfig of the cluster with token.
func writeTokenKubeconfig(t *testing.T, cluster *localcluster.Cluster, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: cluster.APIServerURL(), CertificateAuthorityData: cluster.CABundle()}
	cfg.AuthInfos["local"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "local"}
	cfg.CurrentContext = "local"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func scrape(ctx context.Context, t *testing.T, client *http.Client, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
