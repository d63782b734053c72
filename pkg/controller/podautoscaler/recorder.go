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
