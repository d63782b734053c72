package scalecache

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// kind is one kind whose scale is read from a watch.
type kind struct {
	informer cache.SharedIndexInformer
	// toScale builds the scale the API server's /scale would return for
	// one of the informer's objects.
	toScale func(obj any) (*autoscalingv1.Scale, error)
}

// kinds registers the informers of the four workload kinds in factory.
func kinds(factory informers.SharedInformerFactory) map[schema.GroupResource]kind {
	apps := factory.Apps().V1()
	return map[schema.GroupResource]kind{
		{Group: "apps", Resource: "deployments"}: {informer: apps.Deployments().Informer(), toScale: func(obj any) (*autoscalingv1.Scale, error) {
			d := obj.(*appsv1.Deployment)
			return scaleOf(d.ObjectMeta, d.Spec.Replicas, d.Status.Replicas, d.Spec.Selector)
		}},
		{Group: "apps", Resource: "replicasets"}: {informer: apps.ReplicaSets().Informer(), toScale: func(obj any) (*autoscalingv1.Scale, error) {
			rs := obj.(*appsv1.ReplicaSet)
			return scaleOf(rs.ObjectMeta, rs.Spec.Replicas, rs.Status.Replicas, rs.Spec.Selector)
		}},
		{Group: "apps", Resource: "statefulsets"}: {informer: apps.StatefulSets().Informer(), toScale: func(obj any) (*autoscalingv1.Scale, error) {
			s := obj.(*appsv1.StatefulSet)
			return scaleOf(s.ObjectMeta, s.Spec.Replicas, s.Status.Replicas, s.Spec.Selector)
		}},
		{Group: "", Resource: "replicationcontrollers"}: {informer: factory.Core().V1().ReplicationControllers().Informer(), toScale: func(obj any) (*autoscalingv1.Scale, error) {
			rc := obj.(*corev1.ReplicationController)
			s := scaleWith(rc.ObjectMeta, rc.Spec.Replicas, rc.Status.Replicas)
			s.Status.Selector = labels.SelectorFromSet(rc.Spec.Selector).String()
			return s, nil
		}},
	}
}

// scaleOf is the scale of an object with a label selector, as the API
// server's /scale renders it.
func scaleOf(meta metav1.ObjectMeta, specReplicas *int32, statusReplicas int32, selector *metav1.LabelSelector) (*autoscalingv1.Scale, error) {
	s := scaleWith(meta, specReplicas, statusReplicas)
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, err
	}
	s.Status.Selector = sel.String()
	return s, nil
}

func scaleWith(meta metav1.ObjectMeta, specReplicas *int32, statusReplicas int32) *autoscalingv1.Scale {
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              meta.Name,
			Namespace:         meta.Namespace,
			UID:               meta.UID,
			ResourceVersion:   meta.ResourceVersion,
			CreationTimestamp: meta.CreationTimestamp,
		},
		// The API server defaults spec.replicas to 1; a stored object
		// always has it.
		Spec:   autoscalingv1.ScaleSpec{Replicas: ptr.Deref(specReplicas, 1)},
		Status: autoscalingv1.ScaleStatus{Replicas: statusReplicas},
	}
}

// Strip is the informers' transform: it keeps of each workload object
// what its scale needs, so that a cache of thousands of Deployments holds
// no pod templates.
func Strip(obj any) (any, error) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &appsv1.Deployment{ObjectMeta: minimalMeta(o.ObjectMeta),
			Spec:   appsv1.DeploymentSpec{Replicas: o.Spec.Replicas, Selector: o.Spec.Selector},
			Status: appsv1.DeploymentStatus{Replicas: o.Status.Replicas}}, nil
	case *appsv1.ReplicaSet:
		return &appsv1.ReplicaSet{ObjectMeta: minimalMeta(o.ObjectMeta),
			Spec:   appsv1.ReplicaSetSpec{Replicas: o.Spec.Replicas, Selector: o.Spec.Selector},
			Status: appsv1.ReplicaSetStatus{Replicas: o.Status.Replicas}}, nil
	case *appsv1.StatefulSet:
		return &appsv1.StatefulSet{ObjectMeta: minimalMeta(o.ObjectMeta),
			Spec:   appsv1.StatefulSetSpec{Replicas: o.Spec.Replicas, Selector: o.Spec.Selector},
			Status: appsv1.StatefulSetStatus{Replicas: o.Status.Replicas}}, nil
	case *corev1.ReplicationController:
		return &corev1.ReplicationController{ObjectMeta: minimalMeta(o.ObjectMeta),
			Spec:   corev1.ReplicationControllerSpec{Replicas: o.Spec.Replicas, Selector: o.Spec.Selector},
			Status: corev1.ReplicationControllerStatus{Replicas: o.Status.Replicas}}, nil
	default:
		// Tombstones and anything else pass unchanged.
		return obj, nil
	}
}

func minimalMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp}
}
