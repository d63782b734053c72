{{/*
The release's full name: the release name, or release-chart when the release name does not hold
the chart's name. It names every object of the release.
*/}}
{{- define "kube-hpa.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kube-hpa.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "kube-hpa.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kube-hpa.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the controller's pods. */}}
{{- define "kube-hpa.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-hpa.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: hpa-controller-manager
{{- end }}

{{- define "kube-hpa.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kube-hpa.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The webhook's Service, and the name its certificate is for. */}}
{{- define "kube-hpa.webhookService" -}}
{{- printf "%s-webhook" (include "kube-hpa.fullname" .) }}
{{- end }}

{{- define "kube-hpa.webhookSecret" -}}
{{- printf "%s-webhook-tls" (include "kube-hpa.fullname" .) }}
{{- end }}

{{/* --feature-gates from the featureGates map, sorted so that the pod template is stable. */}}
{{- define "kube-hpa.featureGates" -}}
{{- $gates := list }}
{{- range $name := keys .Values.featureGates | sortAlpha }}
{{- $gates = append $gates (printf "%s=%t" $name (index $.Values.featureGates $name)) }}
{{- end }}
{{- join "," $gates }}
{{- end }}
