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

package podautoscaler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// EventComponent is the source of the controller's events: upstream's, so
// that `kubectl describe hpa` reads the same in every mode.
const EventComponent = "horizontal-pod-autoscaler"

// NewEventRecorder returns a recorder whose events about native and
// extended HPAs go to the API server through events, and the function that
// stops it (flushing what is queued).
func NewEventRecorder(ctx context.Context, events typedcorev1.EventsGetter) (record.EventRecorder, func(), error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	if err := v2.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(3)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: events.Events("")})
	return broadcaster.NewRecorder(scheme, corev1.EventSource{Component: EventComponent}), broadcaster.Shutdown, nil
}
