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

package differential

import (
	"context"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/calculator"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// calcResult is what a replica calculator method returns.
type calcResult struct {
	Replicas    int32
	Utilization int32
	Raw         int64
	Timestamp   time.Time
	Err         string
}

func (r calcResult) String() string {
	if r.Err != "" {
		return fmt.Sprintf("error %q", r.Err)
	}
	return fmt.Sprintf("replicas=%d utilization=%d raw=%d timestamp=%s", r.Replicas, r.Utilization, r.Raw, r.Timestamp.Format(time.RFC3339))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// podIndexer holds the scenario's pods as they are at now, each passed
// through transform: upstream's calculator reads whole pods, kube-hpa's
// the records its informer holds.
func (s calcScenario) podIndexer(now time.Time, transform cache.TransformFunc) cache.Indexer {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range s.Pods {
		obj, err := transform(p.object(now))
		if err != nil {
			panic(err)
		}
		if err := indexer.Add(obj); err != nil {
			panic(err)
		}
	}
	return indexer
}

// wholePods is the transform of an informer without one.
func wholePods(obj any) (any, error) { return obj, nil }

var (
	podSelector = labels.SelectorFromSet(labels.Set{"app": appLabel})
	objectRef   = &autoscalingv2.CrossVersionObjectReference{Kind: "Service", Name: "svc", APIVersion: "v1"}
	// externalSelector is how an HPA selects the series of an External metric.
	externalSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "jobs"}}
)

// runUpstream calls upstream's ReplicaCalculator. time.Now must stand still
// during the call (the test runs it in a synctest bubble).
func (s calcScenario) runUpstream(ctx context.Context) calcResult {
	now := time.Now()
	f := newFakeMetrics()
	s.load(f, now)
	c := upstreamCalc{upstream.NewReplicaCalculator(upstreamClient{f}, corelisters.NewPodLister(s.podIndexer(now, wholePods)), time.Duration(s.CPUInit)*time.Second, time.Duration(s.ReadinessDelay)*time.Second)}
	tol := upstreamTolerances(s.TolDown, s.TolUp)
	var r calcResult
	var err error
	switch s.Method {
	case methodResource:
		r.Replicas, r.Utilization, r.Raw, r.Timestamp, err = c.GetResourceReplicas(ctx, s.Current, int32(s.Target), resourceName(s.Resource), tol, namespace, podSelector, s.Container)
	case methodRawResource:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetRawResourceReplicas(ctx, s.Current, s.Target, resourceName(s.Resource), tol, namespace, podSelector, s.Container)
	case methodPods:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetMetricReplicas(s.Current, s.Target, metricName, tol, namespace, podSelector, labels.Everything())
	case methodObject:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetObjectMetricReplicas(s.Current, s.Target, metricName, tol, namespace, objectRef, podSelector, labels.Everything())
	case methodObjectPerPod:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetObjectPerPodMetricReplicas(s.Current, s.Target, metricName, tol, namespace, objectRef, labels.Everything())
	case methodExternal:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetExternalMetricReplicas(s.Current, s.Target, metricName, tol, namespace, externalSelector, podSelector)
	case methodExternalPerPod:
		r.Replicas, r.Raw, r.Timestamp, err = c.GetExternalPerPodMetricReplicas(s.Current, s.Target, metricName, tol, namespace, externalSelector)
	}
	if err != nil {
		return calcResult{Err: err.Error()}
	}
	return r
}

// runOurs calls kube-hpa's Calculator, with the real clock (which the
// synctest bubble stands still).
func (s calcScenario) runOurs(ctx context.Context) calcResult {
	now := time.Now()
	f := newFakeMetrics()
	s.load(f, now)
	c := calculator.New(calculator.Options{
		MetricsClient:                 ourClient{f},
		PodLister:                     podrecord.NewLister(s.podIndexer(now, podrecord.NewTransformer().Transform)),
		CPUInitializationPeriod:       time.Duration(s.CPUInit) * time.Second,
		DelayOfInitialReadinessStatus: time.Duration(s.ReadinessDelay) * time.Second,
	})
	tol := calculator.Tolerances{ScaleDown: s.TolDown, ScaleUp: s.TolUp}
	var res calculator.Result
	var err error
	switch s.Method {
	case methodResource:
		res, err = c.GetResourceReplicas(ctx, s.Current, int32(s.Target), resourceName(s.Resource), tol, namespace, podSelector, s.Container)
	case methodRawResource:
		res, err = c.GetRawResourceReplicas(ctx, s.Current, s.Target, resourceName(s.Resource), tol, namespace, podSelector, s.Container)
	case methodPods:
		res, err = c.GetMetricReplicas(ctx, s.Current, s.Target, metricName, tol, namespace, podSelector, labels.Everything(), "")
	case methodObject:
		res, err = c.GetObjectMetricReplicas(ctx, s.Current, s.Target, metricName, tol, namespace, objectRef, podSelector, labels.Everything(), "")
	case methodObjectPerPod:
		res, err = c.GetObjectPerPodMetricReplicas(ctx, s.Current, s.Target, metricName, tol, namespace, objectRef, labels.Everything(), "")
	case methodExternal:
		res, err = c.GetExternalMetricReplicas(ctx, s.Current, s.Target, metricName, tol, namespace, externalSelector, podSelector, "")
	case methodExternalPerPod:
		res, err = c.GetExternalPerPodMetricReplicas(ctx, s.Current, s.Target, metricName, tol, namespace, externalSelector, "")
	}
	if err != nil {
		return calcResult{Err: err.Error()}
	}
	r := calcResult{Replicas: res.Replicas, Raw: res.RawUsage, Timestamp: res.Timestamp}
	if s.Method == methodResource {
		r.Utilization = res.Utilization
	}
	return r
}

// calcDiff names the fields in which two results differ.
func calcDiff(up, ours calcResult) []string {
	var d []string
	switch {
	case (up.Err == "") != (ours.Err == ""):
		return []string{"error"}
	case up.Err != "":
		if up.Err != ours.Err {
			d = append(d, "errtext")
		}
		return d
	}
	if up.Replicas != ours.Replicas {
		d = append(d, "replicas")
	}
	if up.Utilization != ours.Utilization {
		d = append(d, "utilization")
	}
	if up.Raw != ours.Raw {
		d = append(d, "raw")
	}
	if !up.Timestamp.Equal(ours.Timestamp) {
		d = append(d, "timestamp")
	}
	return d
}

func resourceName(s string) corev1.ResourceName { return corev1.ResourceName(s) }
