{{/* The operator's image: operator.repository/operator.image:operator.version (the chart's appVersion when empty). */}}
{{- define "gpu-operator.image" -}}
{{ .Values.operator.repository }}/{{ .Values.operator.image }}:{{ .Values.operator.version | default .Chart.AppVersion }}
{{- end }}

{{/* The keys of .Values.operator that are spec.operator of the ClusterPolicy (the CRD's; HelmValuesSchemaTest
     checks this list against it); the other operator.* keys configure the Deployment and the hooks. */}}
{{- define "gpu-operator.policyOperatorKeys" -}}
annotations defaultRuntime initContainer labels metrics runtimeClass use_ocp_driver_toolkit
{{- end }}

{{/* Hook objects: created before the hook Job by weight, deleted once it succeeded or before the next run. */}}
{{- define "gpu-operator.hookAnnotations" -}}
helm.sh/hook: {{ .hook }}
helm.sh/hook-weight: {{ .weight | quote }}
helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
{{- end }}
