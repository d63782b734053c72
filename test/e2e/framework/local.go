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

package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// Binary names in _output/bin.
const (
	controllerBinary = "hpa-controller-manager"
	adapterBinary    = "metrics-adapter"
)

// LocalOptions shape the local environment.
type LocalOptions struct {
	// RepoRoot is the kube-hpa checkout (deploy/, _output/).
	RepoRoot string
	// Mode is what runs the HPA controller: hpa-controller-manager
	// replicas (ModeCRD, the default) or kube-controller-manager of make
	// intree (ModeInTree), which then also gets SyncPeriod and
	// FeatureGates, as kube-apiserver gets FeatureGates.
	Mode Mode
	// Replicas of hpa-controller-manager; 2, as in deploy/deployment.yaml.
	Replicas int
	// Nodes is the number of kwok nodes; localcluster's default (3) when 0.
	Nodes int
	// InTreeBinDir holds the in-tree kube-apiserver,
	// kube-controller-manager and kube-scheduler; by default
	// _output/bin/intree.
	InTreeBinDir string
	// ControlPlaneBinDir holds the kube-apiserver, kube-controller-manager
	// and kube-scheduler to run (localcluster.Options.ControlPlaneBinDir);
	// by default EnvControlPlaneBinDir's, else those of _output/bin. Every
	// environment of a run, those that specs start too, takes it from
	// there.
	ControlPlaneBinDir string
	// SyncPeriod is the controllers' --horizontal-pod-autoscaler-sync-period.
	SyncPeriod time.Duration
	// MetricSharingWindow is the controllers'
	// --horizontal-pod-autoscaler-external-metric-sharing-window. In
	// in-tree mode kube-controller-manager's own controller shares no
	// fetch, so it is 0 there.
	MetricSharingWindow time.Duration
	// FeatureGates are the controllers' --feature-gates.
	FeatureGates map[string]bool
	// ManageNativeHPAs passes --manage-native-hpas, which is safe because
	// the local kube-controller-manager runs without its HPA controller.
	ManageNativeHPAs bool
	// Verbosity is the controllers' -v.
	Verbosity int
	// AuditServiceAccount makes kube-apiserver keep an audit log of the
	// controllers' requests, which RBACUsage reads.
	AuditServiceAccount bool
	// NoController (CRD mode) starts no hpa-controller-manager and
	// installs neither the CRD nor the RBAC nor the webhook of deploy/: a
	// spec installs them itself, as the Helm chart spec does
	// (NewDeploymentReplicas).
	NoController bool
	// Prometheus runs a Prometheus that scrapes an exporter (Local.Exporter)
	// and points the metrics adapter at it (--prometheus-url), so that
	// ConfigMap values that are PromQL queries need not name a server:
	// make run METRICS=prometheus.
	Prometheus bool
}

// Local is the environment that process 1 runs for the whole suite.
type Local struct {
	logger  klog.Logger
	cluster *localcluster.Cluster
	adapter *Supervisor
	// sourceAdapter is the second adapter, of the metric sources' specs
	// (source_adapter.go).
	sourceAdapter *Supervisor
	controllers   *Supervisor
	// exporter and prometheus run with LocalOptions.Prometheus.
	exporter   *localcluster.Exporter
	prometheus *localcluster.Prometheus
	proxy      *RoundRobin
	control    *ControlServer
	// adapterControl stops and starts the adapter for specs (adapter_control.go).
	adapterControl *ControlServer
	// kcmControl restarts kube-controller-manager (in-tree mode).
	kcmControl *ControlServer
	config     Config
	// rbac holds the objects of deploy/rbac.yaml.
	rbac     []*unstructured.Unstructured
	auditLog string
}

// StartLocal starts the local environment; see the package documentation.
// On error, whatever was started is stopped again.
func StartLocal(ctx context.Context, opts LocalOptions) (*Local, error) {
	l := &Local{logger: klog.FromContext(ctx)}
	if err := l.start(ctx, opts); err != nil {
		return nil, errors.Join(err, l.Stop())
	}
	return l, nil
}

// Config is what every ginkgo process needs to use the environment.
func (l *Local) Config() Config { return l.config }

// Cluster is the local control plane.
func (l *Local) Cluster() *localcluster.Cluster { return l.cluster }

func (l *Local) start(ctx context.Context, opts LocalOptions) error {
	root := opts.RepoRoot
	if opts.Mode == "" {
		opts.Mode = ModeCRD
	}
	inTree := opts.Mode == ModeInTree
	if opts.Replicas == 0 {
		opts.Replicas = 2
	}
	if opts.ControlPlaneBinDir == "" {
		opts.ControlPlaneBinDir = os.Getenv(EnvControlPlaneBinDir)
	}
	binaries := map[string]string{adapterBinary: binaryPath(root, EnvAdapterBinary, adapterBinary)}
	if !inTree {
		binaries[controllerBinary] = binaryPath(root, EnvControllerBinary, controllerBinary)
	}
	if opts.Prometheus {
		binaries[prometheusBinary] = binaryPath(root, EnvPrometheusBinary, prometheusBinary)
	}
	for name, path := range binaries {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("%s: %w (make e2e builds it)", name, err)
		}
	}
	namespace, err := controllerNamespace(root)
	if err != nil {
		return err
	}
	// Every environment serves metrics.k8s.io from a real metrics-server
	// scraping the kwok nodes, as most clusters do for CPU and memory HPAs.
	clusterOpts := localcluster.Options{RepoRoot: root, Nodes: opts.Nodes, NoCRDs: opts.NoController,
		ControlPlaneBinDir: opts.ControlPlaneBinDir, MetricsServer: true}
	if inTree {
		clusterOpts.InTree = true
		clusterOpts.InTreeBinDir = opts.InTreeBinDir
		clusterOpts.HPAController = true
		// As kubeadm runs it: the HPA controller acts as the
		// horizontal-pod-autoscaler ServiceAccount with its bootstrap RBAC,
		// which must cover what the patch does.
		clusterOpts.UseServiceAccountCredentials = true
		clusterOpts.NoCRDs = true
		clusterOpts.FeatureGates = opts.FeatureGates
		clusterOpts.HPA = localcluster.HPAControllerFlags{SyncPeriod: opts.SyncPeriod}
	} else if !opts.NoController {
		if err := l.readRBAC(root, namespace, opts.AuditServiceAccount, &clusterOpts); err != nil {
			return err
		}
	}

	begin := time.Now()
	cluster, err := localcluster.Start(ctx, clusterOpts)
	if err != nil {
		return err
	}
	l.cluster = cluster
	l.logger.Info("Local cluster started", "mode", opts.Mode, "took", time.Since(begin).Round(time.Millisecond), "logs", cluster.LogDir())

	// Every file of the environment lives in the cluster's run directory,
	// so that each process's command line names it and the cluster's
	// LeftoverProcesses finds any that survives.
	dir := filepath.Join(cluster.RunDir(), "e2e")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cluster.RESTConfig())
	if err != nil {
		return err
	}
	l.config = Config{
		Local:               true,
		Mode:                opts.Mode,
		HPAKind:             opts.Mode.KEPHPAKind(),
		Kubeconfig:          cluster.Kubeconfig(),
		Kubectl:             filepath.Join(cluster.BinDir(), "kubectl"),
		RepoRoot:            root,
		MetricsNamespace:    namespace,
		MetricsConfigMap:    defaultMetricsConfigMap,
		ControllerNamespace: namespace,
		LeaseName:           defaultLeaseName,
		SyncPeriod:          Duration{opts.SyncPeriod},
		MetricSharingWindow: Duration{opts.MetricSharingWindow},
		LeaseDuration:       Duration{defaultLeaseDuration},
		FeatureGates:        opts.FeatureGates,
		LogDir:              cluster.LogDir(),
	}
	if inTree {
		l.config.UpstreamE2ETest = filepath.Join(cluster.InTreeBinDir(), "e2e.test")
	}

	manifests := []string{"namespace.yaml", "rbac.yaml"}
	if inTree || opts.NoController {
		// The metrics adapter's ConfigMap lives in the namespace; nothing
		// uses the controller's ServiceAccount.
		manifests = manifests[:1]
	}
	for _, f := range manifests {
		if out, err := cluster.Kubectl("apply", "-f", filepath.Join(root, "deploy", f)); err != nil {
			return fmt.Errorf("applying deploy/%s: %w\n%s", f, err, out)
		}
	}
	if opts.Prometheus {
		if err := l.startPrometheus(ctx, root, dir); err != nil {
			return err
		}
	}
	if err := l.startAdapter(ctx, kube, dir, binaries[adapterBinary]); err != nil {
		return err
	}
	if err := l.startAdapterControl(); err != nil {
		return err
	}
	if !opts.NoController {
		if err := l.startSourceAdapter(ctx, kube, dir, binaries[adapterBinary]); err != nil {
			return err
		}
	}
	switch {
	case inTree:
		if err := l.startControllerManagerControl(); err != nil {
			return err
		}
	case opts.NoController:
		l.logger.Info("Local e2e environment is ready without a controller", "took", time.Since(begin).Round(time.Millisecond))
		return nil
	default:
		if err := l.startHPAControllerManager(ctx, opts, kube, dir, binaries[controllerBinary]); err != nil {
			return err
		}
	}
	env, err := NewEnvironment(l.config)
	if err != nil {
		return err
	}
	if err := env.waitReady(ctx); err != nil {
		return err
	}
	l.logger.Info("Local e2e environment is ready", "mode", opts.Mode, "took", time.Since(begin).Round(time.Millisecond))
	return nil
}

// controllerNamespace is the namespace of deploy/namespace.yaml, which
// holds the controller and the metrics adapter's ConfigMap.
func controllerNamespace(root string) (string, error) {
	objs, err := ReadManifests(filepath.Join(root, "deploy", "namespace.yaml"))
	if err != nil {
		return "", err
	}
	ns, err := FindManifest(objs, "Namespace")
	if err != nil {
		return "", fmt.Errorf("deploy/namespace.yaml: %w", err)
	}
	return ns.GetName(), nil
}

// readRBAC reads deploy/rbac.yaml, and with audit has kube-apiserver log
// the requests of its ServiceAccount.
func (l *Local) readRBAC(root, namespace string, audit bool, clusterOpts *localcluster.Options) error {
	rbac, err := ReadManifests(filepath.Join(root, "deploy", "rbac.yaml"))
	if err != nil {
		return err
	}
	sa, err := FindManifest(rbac, "ServiceAccount")
	if err != nil {
		return fmt.Errorf("deploy/rbac.yaml: %w", err)
	}
	if sa.GetNamespace() != namespace {
		return fmt.Errorf("deploy/rbac.yaml: the ServiceAccount is in %q, deploy/namespace.yaml makes %q", sa.GetNamespace(), namespace)
	}
	l.rbac = rbac
	if audit {
		user := fmt.Sprintf("system:serviceaccount:%s:%s", sa.GetNamespace(), sa.GetName())
		// Beside the cluster's run directories (localcluster's default
		// OutputDir), pruned with them.
		log, flags, err := auditFlags(filepath.Join(root, "_output", "localcluster"), user)
		if err != nil {
			return err
		}
		l.auditLog = log
		clusterOpts.ExtraAPIServerFlags = flags
	}
	return nil
}

// startHPAControllerManager runs the replicas of hpa-controller-manager
// under deploy/rbac.yaml's ServiceAccount, their webhook and their control
// endpoint (CRD mode).
func (l *Local) startHPAControllerManager(ctx context.Context, opts LocalOptions, kube kubernetes.Interface, dir, binary string) error {
	sa, err := FindManifest(l.rbac, "ServiceAccount")
	if err != nil {
		return err
	}
	saKubeconfig, err := l.writeServiceAccountKubeconfig(ctx, kube, dir, sa.GetNamespace(), sa.GetName())
	if err != nil {
		return err
	}
	if err := l.startControllers(ctx, opts, dir, binary, saKubeconfig); err != nil {
		return err
	}
	if err := l.registerWebhook(ctx); err != nil {
		return err
	}
	control, err := StartControlServer(l.logger, l.controllers)
	if err != nil {
		return err
	}
	l.control = control
	l.config.ControlURL = control.URL()
	return nil
}

// writeServingCert writes a certificate of the cluster CA for hosts.
func (l *Local) writeServingCert(dir, name string, hosts ...string) (certFile, keyFile string, err error) {
	certPEM, keyPEM, err := l.cluster.IssueServingCert(hosts...)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, os.WriteFile(keyFile, keyPEM, 0o600)
}

// serviceAccountTokenLifetime outlasts any run of the suite.
const serviceAccountTokenLifetime = 6 * time.Hour

// writeServiceAccountKubeconfig mints a token for the controller's
// ServiceAccount (TokenRequest) and writes a kubeconfig with it, so that
// the controllers hold exactly the permissions deploy/rbac.yaml grants.
func (l *Local) writeServiceAccountKubeconfig(ctx context.Context, kube kubernetes.Interface, dir, namespace, name string) (string, error) {
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: ptr.To(int64(serviceAccountTokenLifetime / time.Second)),
	}}
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, tr, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	const ctxName = "hpa-controller-manager"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ctxName] = &clientcmdapi.Cluster{Server: l.cluster.APIServerURL(), CertificateAuthorityData: l.cluster.CABundle()}
	cfg.AuthInfos[ctxName] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts[ctxName] = &clientcmdapi.Context{Cluster: ctxName, AuthInfo: ctxName, Namespace: namespace}
	cfg.CurrentContext = ctxName
	path := filepath.Join(dir, "hpa-controller-manager.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

func (l *Local) startControllers(ctx context.Context, opts LocalOptions, dir, binary, kubeconfig string) error {
	// Projected as a Secret volume of cert-manager's Certificate, which
	// specs renew (Environment.WebhookCertificates).
	webhookTLS, err := setUpWebhookTLS(dir, "127.0.0.1")
	if err != nil {
		return err
	}
	l.config.WebhookTLS = &webhookTLS
	certFile, keyFile := webhookTLS.CertFile(), webhookTLS.KeyFile()
	ports, err := localcluster.FreePorts(3 * opts.Replicas)
	if err != nil {
		return err
	}
	var gates []string
	for name, on := range opts.FeatureGates {
		gates = append(gates, fmt.Sprintf("%s=%t", name, on))
	}
	sort.Strings(gates) // the same command line on every run
	var specs []ProcessSpec
	var backends []string
	for i := range opts.Replicas {
		ep := ReplicaEndpoints{
			Name:        fmt.Sprintf("%s-%d", controllerBinary, i),
			MetricsPort: ports[3*i],
			WebhookPort: ports[3*i+1],
			SecurePort:  ports[3*i+2],
			LogPath:     filepath.Join(l.cluster.LogDir(), fmt.Sprintf("%s-%d.log", controllerBinary, i)),
		}
		l.config.Replicas = append(l.config.Replicas, ep)
		backends = append(backends, fmt.Sprintf("127.0.0.1:%d", ep.WebhookPort))
		args := []string{
			"--kubeconfig=" + kubeconfig,
			"--bind-address=127.0.0.1",
			"--port=" + strconv.Itoa(ep.MetricsPort),
			"--secure-port=" + strconv.Itoa(ep.SecurePort),
			"--webhook-port=" + strconv.Itoa(ep.WebhookPort),
			"--tls-cert-file=" + certFile,
			"--tls-private-key-file=" + keyFile,
			"--leader-elect-resource-namespace=" + l.config.ControllerNamespace,
			"--horizontal-pod-autoscaler-sync-period=" + opts.SyncPeriod.String(),
			"--horizontal-pod-autoscaler-external-metric-sharing-window=" + opts.MetricSharingWindow.String(),
			"--v=" + strconv.Itoa(opts.Verbosity),
			// The client limits kube-controller-manager has in
			// test/localcluster, so that both modes run their HPA
			// controller under the same ones: the suite's parallel
			// specs keep tens of HPAs at a 5 s period on one controller,
			// far more than the default 20 QPS is sized for.
			"--kube-api-qps=100",
			"--kube-api-burst=200",
		}
		if len(gates) > 0 {
			args = append(args, "--feature-gates="+strings.Join(gates, ","))
		}
		if opts.ManageNativeHPAs {
			args = append(args, "--manage-native-hpas")
		}
		specs = append(specs, ProcessSpec{Name: ep.Name, Binary: binary, Args: args, LogPath: ep.LogPath})
	}
	proxy, err := StartRoundRobin(l.logger.WithName("webhook-proxy"), backends)
	if err != nil {
		return err
	}
	l.proxy = proxy
	l.controllers = StartSupervisor(l.logger.WithName("controllers"), specs)
	return nil
}

// RBACUsage summarizes, from the audit log, how the controllers used each
// rule of deploy/rbac.yaml; see RBACUsage. Call it after Stop, once the
// log is complete. It returns "" without AuditServiceAccount.
func (l *Local) RBACUsage() (string, error) {
	if l.auditLog == "" {
		return "", nil
	}
	var rules []rbacv1.PolicyRule
	for _, o := range l.rbac {
		var role rbacv1.ClusterRole // a Role's rules read the same
		if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
			continue
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
			return "", err
		}
		rules = append(rules, role.Rules...)
	}
	usage, err := RBACUsage(l.auditLog, rules)
	if err != nil {
		return "", err
	}
	return usage, os.WriteFile(filepath.Join(filepath.Dir(l.auditLog), "rbac-usage.txt"), []byte(usage), 0o644)
}

// Stop stops everything StartLocal started, in reverse order, and fails
// if any process of the environment is still alive afterwards.
func (l *Local) Stop() error {
	var errs []error
	if l.control != nil {
		errs = append(errs, l.control.Close())
	}
	if l.adapterControl != nil {
		errs = append(errs, l.adapterControl.Close())
	}
	if l.kcmControl != nil {
		errs = append(errs, l.kcmControl.Close())
	}
	if l.controllers != nil {
		l.controllers.Stop()
	}
	if l.proxy != nil {
		l.proxy.Close()
	}
	if l.adapter != nil {
		l.adapter.Stop()
	}
	if l.sourceAdapter != nil {
		l.sourceAdapter.Stop()
	}
	errs = append(errs, l.stopPrometheus())
	if l.cluster != nil {
		errs = append(errs, l.cluster.Stop())
		leftovers, err := l.cluster.LeftoverProcesses()
		errs = append(errs, err)
		if len(leftovers) > 0 {
			errs = append(errs, fmt.Errorf("processes left running:\n%s", strings.Join(leftovers, "\n")))
		}
		l.logger.Info("Local e2e environment stopped", "logs", l.cluster.LogDir())
	}
	return errors.Join(errs...)
}
