{{- define "csc.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "csc.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "csc.sidecarSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: sidecar
{{- end -}}

{{- define "csc.mgrSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: mgr-module
{{- end -}}

{{- /*
The CephObjectStore's names, as Rook derives them from the store's metadata.name. A store
outside a multisite zone is its own zone, and its pools are "<zone>.<pool>"
(rook/rook pkg/operator/ceph/object/objectstore.go: getMultisiteForObjectStore() returns the
store's name as the zone, poolName() prefixes it to "rgw.log" and "rgw.buckets.index" of
metadataPools).
*/ -}}
{{- define "csc.logPool" -}}
{{- .Values.objectStore.logPool | default (printf "%s.rgw.log" .Values.objectStore.name) -}}
{{- end -}}

{{- define "csc.indexPool" -}}
{{- .Values.objectStore.indexPool | default (printf "%s.rgw.buckets.index" .Values.objectStore.name) -}}
{{- end -}}

{{- /*
The Admin Ops endpoint: Rook's Service for a store is rook-ceph-rgw-<store> in the store's
namespace, its "http" port spec.gateway.port (rook/rook pkg/operator/ceph/object/spec.go:
generateService(), named by instanceName() of rgw.go, AppName "rook-ceph-rgw").
*/ -}}
{{- define "csc.rgwEndpoint" -}}
{{- .Values.objectStore.endpoint | default (printf "http://rook-ceph-rgw-%s.%s.svc:%v" .Values.objectStore.name .Values.rook.clusterNamespace .Values.objectStore.port) -}}
{{- end -}}

{{- /*
The secret Rook writes a CephObjectStoreUser's keys to, in the user's namespace, keys
AccessKey and SecretKey (rook/rook pkg/operator/ceph/object/user.go:
GenerateCephUserSecretName() "rook-ceph-object-user-<store>-<user>", generateCephUserSecret()).
*/ -}}
{{- define "csc.rgwUserSecret" -}}
{{- .Values.objectStore.user.existingSecret | default (printf "rook-ceph-object-user-%s-%s" .Values.objectStore.name .Values.objectStore.user.name) -}}
{{- end -}}

{{- /*
The cephx OSD caps: read the reshard queue (namespace "reshard" of the log pool) and stat
the bucket index objects; nothing without an object store.
*/ -}}
{{- define "csc.osdCaps" -}}
{{- if .Values.cephClient.caps.osd -}}
{{- .Values.cephClient.caps.osd -}}
{{- else if .Values.objectStore.name -}}
{{- printf "allow r pool=%s namespace=reshard, allow r pool=%s" (include "csc.logPool" .) (include "csc.indexPool" .) -}}
{{- end -}}
{{- end -}}

{{- define "csc.image" -}}
{{- $repository := required "sidecar.image.repository: where you pushed the image built from this repository's Dockerfile (docs/deploy.md, \"Rook and Kubernetes\")" .Values.sidecar.image.repository -}}
{{- printf "%s:%s" $repository (.Values.sidecar.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- /* Pod Security "restricted": what every container of the pod sets. */ -}}
{{- define "csc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- /* The shipped base of every runbook_url (rules/README.md, "Runbook links in a fork"). */ -}}
{{- define "csc.shippedRunbookBase" -}}
https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/
{{- end -}}
