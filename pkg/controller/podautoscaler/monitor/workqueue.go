package monitor

import (
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
)

// queueSubsystem is the metric subsystem of client-go's workqueues.
const queueSubsystem = "workqueue"

// queueMetrics is a workqueue.MetricsProvider on one set of client-go's
// workqueue metrics; each queue gets the series of its name.
type queueMetrics struct {
	depth                   *metrics.GaugeVec
	adds                    *metrics.CounterVec
	queueDuration           *metrics.HistogramVec
	workDuration            *metrics.HistogramVec
	unfinishedWork          *metrics.GaugeVec
	longestRunningProcessor *metrics.GaugeVec
	retries                 *metrics.CounterVec
}

var _ workqueue.MetricsProvider = (*queueMetrics)(nil)

// NewQueueMetrics returns a workqueue.MetricsProvider whose metrics are
// registered on registry: the workqueue_* metrics that kube-controller-manager
// exposes for its queues, with component-base's names, help texts, stability
// level, "name" label and buckets. Upstream registers them once on the
// process-wide legacy registry and sets them as client-go's global provider;
// here a queue gets them only when its config names this provider. It
// panics if registry already holds these metrics.
func NewQueueMetrics(registry metrics.KubeRegistry) workqueue.MetricsProvider {
	// As component-base's: 10 buckets growing tenfold from 10 ns to 10 s.
	buckets := metrics.ExponentialBuckets(10e-9, 10, 10)
	labels := []string{"name"}
	m := &queueMetrics{
		depth: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      queueSubsystem,
			Name:           "depth",
			Help:           "Current depth of workqueue",
			StabilityLevel: metrics.BETA,
		}, labels),
		adds: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      queueSubsystem,
			Name:           "adds_total",
			Help:           "Total number of adds handled by workqueue",
			StabilityLevel: metrics.BETA,
		}, labels),
		queueDuration: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      queueSubsystem,
			Name:           "queue_duration_seconds",
			Help:           "How long in seconds an item stays in workqueue before being requested.",
			Buckets:        buckets,
			StabilityLevel: metrics.BETA,
		}, labels),
		workDuration: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      queueSubsystem,
			Name:           "work_duration_seconds",
			Help:           "How long in seconds processing an item from workqueue takes.",
			Buckets:        buckets,
			StabilityLevel: metrics.BETA,
		}, labels),
		unfinishedWork: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem: queueSubsystem,
			Name:      "unfinished_work_seconds",
			Help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
				"Large values indicate stuck threads. " +
				"One can deduce the number of stuck threads by observing the rate at which this increases.",
			StabilityLevel: metrics.BETA,
		}, labels),
		longestRunningProcessor: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      queueSubsystem,
			Name:           "longest_running_processor_seconds",
			Help:           "How many seconds has the longest running processor for workqueue been running.",
			StabilityLevel: metrics.BETA,
		}, labels),
		retries: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      queueSubsystem,
			Name:           "retries_total",
			Help:           "Total number of retries handled by workqueue",
			StabilityLevel: metrics.BETA,
		}, labels),
	}
	registry.MustRegister(
		m.depth,
		m.adds,
		m.queueDuration,
		m.workDuration,
		m.unfinishedWork,
		m.longestRunningProcessor,
		m.retries,
	)
	return m
}

// NewDepthMetric is the queue's workqueue_depth series: items added and
// not yet taken by a worker.
func (m *queueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(name)
}

// NewAddsMetric counts the items added to the queue, in
// workqueue_adds_total.
func (m *queueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(name)
}

// NewLatencyMetric observes, in workqueue_queue_duration_seconds, how long
// each item waited between its Add and the Get that took it.
func (m *queueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return m.queueDuration.WithLabelValues(name)
}

// NewWorkDurationMetric observes each item's time from Get to Done.
func (m *queueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return m.workDuration.WithLabelValues(name)
}

// NewUnfinishedWorkSecondsMetric is set, on the queue's own ticker, to the
// time spent so far on the items being worked on, all together.
func (m *queueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.unfinishedWork.WithLabelValues(name)
}

// NewLongestRunningProcessorSecondsMetric is set, on the same ticker, to
// the time spent so far on the oldest item being worked on.
func (m *queueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.longestRunningProcessor.WithLabelValues(name)
}

// NewRetriesMetric counts the delayed adds: AddAfter and AddRateLimited.
func (m *queueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(name)
}
