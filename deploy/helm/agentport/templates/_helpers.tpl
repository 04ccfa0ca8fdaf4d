{{/* Names and labels shared by every manifest of the chart. */}}
{{- define "agentport.fullname" -}}
{{- printf "%s-agentport" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "agentport.selectorLabels" -}}
app.kubernetes.io/name: agentport
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "agentport.labels" -}}
{{ include "agentport.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "agentport.secretName" -}}
{{- if .Values.secret.existingSecret -}}
{{- .Values.secret.existingSecret -}}
{{- else -}}
{{- include "agentport.fullname" . -}}
{{- end -}}
{{- end -}}
