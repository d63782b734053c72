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

// Package migrate hands a target over between a native HPA and a kube-hpa
// HPA of the same spec and behavior, without moving the target's replicas:
// the new HPA is created first, then the old one deleted, so that the
// target never lacks an autoscaler and has two only between the two writes
// (kube-hpa's ownership guard stops its own HPA for that pass at most).
package migrate

import (
	"context"
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// Native is the part of the native HPA client a migration uses.
type Native interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv2.HorizontalPodAutoscaler, error)
	Create(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, opts metav1.CreateOptions) (*autoscalingv2.HorizontalPodAutoscaler, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Extended is the part of the kube-hpa HPA client a migration uses.
type Extended interface {
	Get(ctx context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error)
	Create(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (*v2.HorizontalPodAutoscaler, error)
	Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error
}

// Options are a migration's clients and settings.
type Options struct {
	Native    Native
	Extended  Extended
	Namespace string
	Name      string
	// DryRun builds the new HPA and returns it without writing anything.
	DryRun bool
}

// ToExtended replaces the native HPA named by opts with a kube-hpa HPA of
// the same name, spec and behavior, and returns the new one.
func ToExtended(ctx context.Context, opts Options) (*v2.HorizontalPodAutoscaler, error) {
	old, err := opts.Native.Get(ctx, opts.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the native HPA: %w", err)
	}
	converted := v2.FromNative(old)
	hpa := &v2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: carriedMeta(old.ObjectMeta),
		Spec:       converted.Spec,
	}
	// The webhook lets the new HPA in beside the native one it names.
	hpa.Annotations[webhook.ReplacesAnnotation] = old.Name
	if opts.DryRun {
		return hpa, nil
	}
	created, err := opts.Extended.Create(ctx, hpa)
	if err != nil {
		return nil, fmt.Errorf("creating the kube-hpa HPA: %w", err)
	}
	if err := opts.Native.Delete(ctx, old.Name, deleteExactly(old.UID)); err != nil {
		// The native HPA keeps the target: the new one goes, or both would
		// stay (the guard would stop kube-hpa's, not upstream's).
		undo := opts.Extended.Delete(ctx, created.Namespace, created.Name, deleteExactly(created.UID))
		return nil, errors.Join(fmt.Errorf("deleting the native HPA (the kube-hpa one is removed again): %w", err), undo)
	}
	return created, nil
}

// ToNative replaces the kube-hpa HPA named by opts with a native HPA of the
// same name, spec and behavior. An HPA using what the native kind lacks
// (a fallback) is refused: the native one would not do the same.
func ToNative(ctx context.Context, opts Options) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	old, err := opts.Extended.Get(ctx, opts.Namespace, opts.Name)
	if err != nil {
		return nil, fmt.Errorf("reading the kube-hpa HPA: %w", err)
	}
	converted := v2.ToNative(old)
	if back := v2.FromNative(converted); !apiequality.Semantic.DeepEqual(back.Spec, old.Spec) {
		return nil, fmt.Errorf("%s/%s uses fields the native HPA lacks (such as a metric's fallback): remove them first", old.Namespace, old.Name)
	}
	meta := carriedMeta(old.ObjectMeta)
	delete(meta.Annotations, webhook.ReplacesAnnotation)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: meta,
		Spec:       converted.Spec,
	}
	if opts.DryRun {
		return hpa, nil
	}
	created, err := opts.Native.Create(ctx, hpa, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the native HPA: %w", err)
	}
	if err := opts.Extended.Delete(ctx, old.Namespace, old.Name, deleteExactly(old.UID)); err != nil {
		undo := opts.Native.Delete(ctx, created.Name, deleteExactly(created.UID))
		return nil, errors.Join(fmt.Errorf("deleting the kube-hpa HPA (the native one is removed again): %w", err), undo)
	}
	return created, nil
}

// carriedMeta is what the new HPA keeps of the old one's metadata: its
// name, namespace, labels and annotations, not its identity or history.
func carriedMeta(in metav1.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{Namespace: in.Namespace, Name: in.Name, Labels: map[string]string{}, Annotations: map[string]string{}}
	for k, v := range in.Labels {
		out.Labels[k] = v
	}
	for k, v := range in.Annotations {
		if k == "kubectl.kubernetes.io/last-applied-configuration" {
			continue
		}
		out.Annotations[k] = v
	}
	return out
}

// deleteExactly deletes the object only if it is still the one read.
func deleteExactly(uid types.UID) metav1.DeleteOptions {
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
}
