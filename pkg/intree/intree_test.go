package intree

import (
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	componentmetrics "k8s.io/component-base/metrics"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// kcmGate stands for kube-controller-manager's gate: the HPA features it
// knows, with HPAExternalMetricFallback on.
func kcmGate(t *testing.T) featuregate.FeatureGate {
	t.Helper()
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		features.HPAExternalMetricFallback: {Default: false, PreRelease: featuregate.Alpha},
		features.HPAScaleToZero:            {Default: true, PreRelease: featuregate.Beta},
	}); err != nil {
		t.Fatal(err)
	}
	if err := gate.SetFromMap(map[string]bool{string(features.HPAExternalMetricFallback): true}); err != nil {
		t.Fatal(err)
	}
	return gate
}

func validOptions(t *testing.T, client *fake.Clientset, registry componentmetrics.KubeRegistry) Options {
	mapper := apimeta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, apimeta.RESTScopeNamespace)
	return Options{
		// Nothing listens there: every scale read fails at once.
		ClientConfig:                 &rest.Config{Host: "http://127.0.0.1:1"},
		Client:                       client,
		Mapper:                       mapper,
		InformerFactory:              informers.NewSharedInformerFactory(client, 0),
		FeatureGate:                  kcmGate(t),
		Metrics:                      registry,
		SyncPeriod:                   time.Second,
		DownscaleStabilizationWindow: 5 * time.Minute,
		Tolerance:                    0.1,
		CPUInitializationPeriod:      5 * time.Minute,
		InitialReadinessDelay:        30 * time.Second,
		ConcurrentSyncs:              1,
	}
}

func TestNewRefusesIncompleteOptions(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Options)
		want   string
	}{
		{name: "no client configuration", mutate: func(o *Options) { o.ClientConfig = nil }, want: "must be set"},
		{name: "no feature gate", mutate: func(o *Options) { o.FeatureGate = nil }, want: "must be set"},
		{name: "no metrics registry", mutate: func(o *Options) { o.Metrics = nil }, want: "must be set"},
		{name: "no workers", mutate: func(o *Options) { o.ConcurrentSyncs = 0 }, want: "at least 1"},
		{name: "a zero sync period", mutate: func(o *Options) { o.SyncPeriod = 0 }, want: "sync period must be positive"},
		{name: "a negative tolerance", mutate: func(o *Options) { o.Tolerance = -1 }, want: "tolerance"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := validOptions(t, fake.NewClientset(), componentmetrics.NewKubeRegistry())
			tc.mutate(&opts)
			_, err := New(t.Context(), opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New() error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The controller kube-controller-manager gets reads native HPAs from its
// informer factory, writes their status and events through its client and
// reports on its registry under upstream's metric names.
func TestControllerRunsOnKubeControllerManagersPieces(t *testing.T) {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    5,
			Metrics: []autoscalingv2.MetricSpec{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &autoscalingv2.ExternalMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "queue"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse("10"))},
				},
			}},
		},
	}
	client := fake.NewClientset(hpa)
	registry := componentmetrics.NewKubeRegistry()
	opts := validOptions(t, client, registry)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.InformerFactory.Start(ctx.Done())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx)
	}()
	defer func() {
		cancel()
		opts.InformerFactory.Shutdown()
		<-done
	}()

	var stored *autoscalingv2.HorizontalPodAutoscaler
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		stored, err = client.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(stored.Status.Conditions) > 0, err
	})
	if err != nil {
		t.Fatalf("no status written: %v", err)
	}
	if got := stored.Status.Conditions[0]; got.Type != autoscalingv2.AbleToScale || got.Status != corev1.ConditionFalse || got.Reason != "FailedGetScale" {
		t.Errorf("first condition = %s=%s %s, want AbleToScale=False FailedGetScale (no scale endpoint)", got.Type, got.Status, got.Reason)
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == "FailedGetScale" && e.Source.Component == "horizontal-pod-autoscaler" && e.InvolvedObject.Kind == "HorizontalPodAutoscaler" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no FailedGetScale event from horizontal-pod-autoscaler: %v", err)
	}
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, want := range []string{
		"horizontal_pod_autoscaler_controller_reconciliations_total",
		"horizontal_pod_autoscaler_controller_reconciliation_duration_seconds",
		"horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers",
	} {
		if !names[want] {
			t.Errorf("metric %s missing from the registry; have %v", want, names)
		}
	}
}
