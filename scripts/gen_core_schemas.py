#!/usr/bin/env python3
"""Writes the built-in schemas of the workload kinds: lib/schema/data/{core/Pod,apps/*,batch/*}.yaml.

    scripts/gen_core_schemas.py [--out lib/schema/data]

The Kubernetes API has no CRD files to give to scripts/gen_schemas.py: its kinds are Go types
(k8s.io/api core/v1, apps/v1, batch/v1, at Kubernetes v1.33). Pod, Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job and CronJob share one PodSpec, written once below in the CRD schema
form (structure only) and placed under each kind's pod template. Where the structure stops being
written out, the node is `x-kubernetes-preserve-unknown-fields: true` (README "Schema
validation" lists those nodes): those fields are not checked rather than reported as unknown.
"""
import argparse
import os
import textwrap

SOURCE = "k8s.io/api v1.33 (core/v1, apps/v1 and batch/v1 Go types and their OpenAPI)"

# ObjectMeta as a pod template carries it (the top-level metadata is checked by the validator's
# own ObjectMeta schema).
TEMPLATE_METADATA = """\
type: object
properties:
  name: {type: string}
  generateName: {type: string}
  namespace: {type: string}
  labels: {type: object, additionalProperties: {type: string}}
  annotations: {type: object, additionalProperties: {type: string}}
  finalizers: {type: array, items: {type: string}}
  ownerReferences: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  uid: {type: string}
  resourceVersion: {type: string}
  generation: {type: integer, format: int64}
  creationTimestamp: {type: string, nullable: true}
  deletionTimestamp: {type: string, nullable: true}
  deletionGracePeriodSeconds: {type: integer, format: int64}
  selfLink: {type: string}
  managedFields: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""

LABEL_SELECTOR = """\
type: object
properties:
  matchLabels: {type: object, additionalProperties: {type: string}}
  matchExpressions:
    type: array
    items:
      type: object
      required: [key, operator]
      properties:
        key: {type: string}
        operator: {type: string}
        values: {type: array, items: {type: string}}
"""

# core/v1 PodSpec. Lists the API server keys by name (containers, volumes) are map lists, as
# its validation refuses duplicate names there; env and ports are not (duplicates are warnings).
POD_SPEC = """\
type: object
required: [containers]
properties:
  volumes:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items:
      type: object
      required: [name]
      x-kubernetes-preserve-unknown-fields: true
      properties:
        name: {type: string}
        configMap:
          type: object
          properties:
            name: {type: string}
            optional: {type: boolean}
            defaultMode: {type: integer, format: int32}
            items: &keyToPath
              type: array
              items:
                type: object
                required: [key, path]
                properties:
                  key: {type: string}
                  path: {type: string}
                  mode: {type: integer, format: int32}
        secret:
          type: object
          properties:
            secretName: {type: string}
            optional: {type: boolean}
            defaultMode: {type: integer, format: int32}
            items: *keyToPath
        emptyDir:
          type: object
          properties:
            medium: {type: string}
            sizeLimit: {x-kubernetes-int-or-string: true}
        persistentVolumeClaim:
          type: object
          required: [claimName]
          properties:
            claimName: {type: string}
            readOnly: {type: boolean}
  initContainers: &containers
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items:
      type: object
      required: [name]
      properties:
        name: {type: string}
        image: {type: string}
        command: {type: array, items: {type: string}}
        args: {type: array, items: {type: string}}
        workingDir: {type: string}
        ports:
          type: array
          items:
            type: object
            required: [containerPort]
            properties:
              name: {type: string}
              hostPort: {type: integer, format: int32}
              containerPort: {type: integer, format: int32}
              protocol: {type: string, enum: [SCTP, TCP, UDP], default: TCP}
              hostIP: {type: string}
        envFrom:
          type: array
          items:
            type: object
            properties:
              prefix: {type: string}
              configMapRef: &optionalRef
                type: object
                properties:
                  name: {type: string}
                  optional: {type: boolean}
              secretRef: *optionalRef
        env:
          type: array
          items:
            type: object
            required: [name]
            properties:
              name: {type: string}
              value: {type: string}
              valueFrom:
                type: object
                properties:
                  fieldRef:
                    type: object
                    required: [fieldPath]
                    properties:
                      apiVersion: {type: string}
                      fieldPath: {type: string}
                  resourceFieldRef:
                    type: object
                    required: [resource]
                    properties:
                      containerName: {type: string}
                      resource: {type: string}
                      divisor: {x-kubernetes-int-or-string: true}
                  configMapKeyRef: &keySelector
                    type: object
                    required: [key]
                    properties:
                      name: {type: string}
                      key: {type: string}
                      optional: {type: boolean}
                  secretKeyRef: *keySelector
        resources: &resources
          type: object
          properties:
            limits: {type: object, additionalProperties: {x-kubernetes-int-or-string: true}}
            requests: {type: object, additionalProperties: {x-kubernetes-int-or-string: true}}
            claims:
              type: array
              x-kubernetes-list-type: map
              x-kubernetes-list-map-keys: [name]
              items:
                type: object
                required: [name]
                properties:
                  name: {type: string}
                  request: {type: string}
        resizePolicy:
          type: array
          items:
            type: object
            required: [resourceName, restartPolicy]
            properties:
              resourceName: {type: string}
              restartPolicy: {type: string}
        restartPolicy: {type: string}
        volumeMounts:
          type: array
          items:
            type: object
            required: [name, mountPath]
            properties:
              name: {type: string}
              readOnly: {type: boolean}
              recursiveReadOnly: {type: string}
              mountPath: {type: string}
              subPath: {type: string}
              mountPropagation: {type: string, enum: [Bidirectional, HostToContainer, None]}
              subPathExpr: {type: string}
        volumeDevices:
          type: array
          items:
            type: object
            required: [name, devicePath]
            properties:
              name: {type: string}
              devicePath: {type: string}
        livenessProbe: &probe
          type: object
          properties:
            exec: &exec {type: object, properties: {command: {type: array, items: {type: string}}}}
            httpGet: &httpGet
              type: object
              required: [port]
              properties:
                path: {type: string}
                port: {x-kubernetes-int-or-string: true}
                host: {type: string}
                scheme: {type: string, enum: [HTTP, HTTPS]}
                httpHeaders:
                  type: array
                  items:
                    type: object
                    required: [name, value]
                    properties:
                      name: {type: string}
                      value: {type: string}
            tcpSocket: &tcpSocket
              type: object
              required: [port]
              properties:
                port: {x-kubernetes-int-or-string: true}
                host: {type: string}
            grpc:
              type: object
              required: [port]
              properties:
                port: {type: integer, format: int32}
                service: {type: string}
            initialDelaySeconds: {type: integer, format: int32}
            timeoutSeconds: {type: integer, format: int32}
            periodSeconds: {type: integer, format: int32}
            successThreshold: {type: integer, format: int32}
            failureThreshold: {type: integer, format: int32}
            terminationGracePeriodSeconds: {type: integer, format: int64}
        readinessProbe: *probe
        startupProbe: *probe
        lifecycle:
          type: object
          properties:
            postStart: &handler
              type: object
              properties:
                exec: *exec
                httpGet: *httpGet
                tcpSocket: *tcpSocket
                sleep:
                  type: object
                  required: [seconds]
                  properties:
                    seconds: {type: integer, format: int64}
            preStop: *handler
            stopSignal: {type: string}
        terminationMessagePath: {type: string}
        terminationMessagePolicy: {type: string, enum: [FallbackToLogsOnError, File]}
        imagePullPolicy: {type: string, enum: [Always, IfNotPresent, Never]}
        securityContext: {type: object, x-kubernetes-preserve-unknown-fields: true}
        stdin: {type: boolean}
        stdinOnce: {type: boolean}
        tty: {type: boolean}
        targetContainerName: {type: string}
  containers: *containers
  ephemeralContainers: *containers
  restartPolicy: {type: string, enum: [Always, Never, OnFailure]}
  terminationGracePeriodSeconds: {type: integer, format: int64}
  activeDeadlineSeconds: {type: integer, format: int64}
  dnsPolicy: {type: string, enum: [ClusterFirst, ClusterFirstWithHostNet, Default, None]}
  nodeSelector: {type: object, additionalProperties: {type: string}}
  serviceAccountName: {type: string}
  serviceAccount: {type: string}
  automountServiceAccountToken: {type: boolean}
  nodeName: {type: string}
  hostNetwork: {type: boolean}
  hostPID: {type: boolean}
  hostIPC: {type: boolean}
  shareProcessNamespace: {type: boolean}
  securityContext: {type: object, x-kubernetes-preserve-unknown-fields: true}
  imagePullSecrets: {type: array, items: {type: object, properties: {name: {type: string}}}}
  hostname: {type: string}
  subdomain: {type: string}
  affinity: {type: object, x-kubernetes-preserve-unknown-fields: true}
  schedulerName: {type: string}
  tolerations:
    type: array
    items:
      type: object
      properties:
        key: {type: string}
        operator: {type: string, enum: [Equal, Exists]}
        value: {type: string}
        effect: {type: string, enum: [NoExecute, NoSchedule, PreferNoSchedule]}
        tolerationSeconds: {type: integer, format: int64}
  hostAliases:
    type: array
    items:
      type: object
      required: [ip]
      properties:
        ip: {type: string}
        hostnames: {type: array, items: {type: string}}
  priorityClassName: {type: string}
  priority: {type: integer, format: int32}
  dnsConfig:
    type: object
    properties:
      nameservers: {type: array, items: {type: string}}
      searches: {type: array, items: {type: string}}
      options:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            value: {type: string}
  readinessGates:
    type: array
    items:
      type: object
      required: [conditionType]
      properties:
        conditionType: {type: string}
  runtimeClassName: {type: string}
  enableServiceLinks: {type: boolean}
  preemptionPolicy: {type: string, enum: [Never, PreemptLowerPriority]}
  overhead: {type: object, additionalProperties: {x-kubernetes-int-or-string: true}}
  topologySpreadConstraints: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  setHostnameAsFQDN: {type: boolean}
  os:
    type: object
    required: [name]
    properties:
      name: {type: string}
  hostUsers: {type: boolean}
  schedulingGates:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items:
      type: object
      required: [name]
      properties:
        name: {type: string}
  resourceClaims: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  resources: *resources
"""


def block(text, indent):
    return textwrap.indent(text, " " * indent).rstrip("\n")


def template(indent):
    """A PodTemplateSpec (metadata and spec) as the body of a mapping at `indent` columns."""
    return "\n".join([
        " " * indent + "type: object",
        " " * indent + "properties:",
        " " * (indent + 2) + "metadata:",
        block(TEMPLATE_METADATA, indent + 4),
        " " * (indent + 2) + "spec:",
        block(POD_SPEC, indent + 4),
    ])


def selector(indent):
    return block(LABEL_SELECTOR, indent)


INT32 = "{type: integer, format: int32}"
INT64 = "{type: integer, format: int64}"


def deployment_spec():
    return f"""\
            type: object
            required: [selector, template]
            properties:
              replicas: {INT32}
              selector:
{selector(16)}
              template:
{template(16)}
              strategy:
                type: object
                properties:
                  type: {{type: string, enum: [Recreate, RollingUpdate]}}
                  rollingUpdate:
                    type: object
                    properties:
                      maxUnavailable: {{x-kubernetes-int-or-string: true}}
                      maxSurge: {{x-kubernetes-int-or-string: true}}
              minReadySeconds: {INT32}
              revisionHistoryLimit: {INT32}
              paused: {{type: boolean}}
              progressDeadlineSeconds: {INT32}"""


def statefulset_spec():
    return f"""\
            type: object
            required: [selector, template]
            properties:
              replicas: {INT32}
              selector:
{selector(16)}
              template:
{template(16)}
              volumeClaimTemplates:
                type: array
                items: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
              serviceName: {{type: string}}
              podManagementPolicy: {{type: string, enum: [OrderedReady, Parallel]}}
              updateStrategy:
                type: object
                properties:
                  type: {{type: string, enum: [OnDelete, RollingUpdate]}}
                  rollingUpdate:
                    type: object
                    properties:
                      partition: {INT32}
                      maxUnavailable: {{x-kubernetes-int-or-string: true}}
              revisionHistoryLimit: {INT32}
              minReadySeconds: {INT32}
              persistentVolumeClaimRetentionPolicy:
                type: object
                properties:
                  whenDeleted: {{type: string}}
                  whenScaled: {{type: string}}
              ordinals:
                type: object
                properties:
                  start: {INT32}"""


def daemonset_spec():
    return f"""\
            type: object
            required: [selector, template]
            properties:
              selector:
{selector(16)}
              template:
{template(16)}
              updateStrategy:
                type: object
                properties:
                  type: {{type: string, enum: [OnDelete, RollingUpdate]}}
                  rollingUpdate:
                    type: object
                    properties:
                      maxUnavailable: {{x-kubernetes-int-or-string: true}}
                      maxSurge: {{x-kubernetes-int-or-string: true}}
              minReadySeconds: {INT32}
              revisionHistoryLimit: {INT32}"""


def replicaset_spec():
    return f"""\
            type: object
            required: [selector]
            properties:
              replicas: {INT32}
              minReadySeconds: {INT32}
              selector:
{selector(16)}
              template:
{template(16)}"""


def job_spec(indent):
    pad = " " * indent
    body = f"""\
type: object
required: [template]
properties:
  parallelism: {INT32}
  completions: {INT32}
  activeDeadlineSeconds: {INT64}
  podFailurePolicy: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
  successPolicy: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
  backoffLimit: {INT32}
  backoffLimitPerIndex: {INT32}
  maxFailedIndexes: {INT32}
  selector:
{selector(4)}
  manualSelector: {{type: boolean}}
  template:
{template(4)}
  ttlSecondsAfterFinished: {INT32}
  completionMode: {{type: string, enum: [Indexed, NonIndexed]}}
  suspend: {{type: boolean}}
  podReplacementPolicy: {{type: string, enum: [Failed, TerminatingOrFailed]}}
  managedBy: {{type: string}}
"""
    return textwrap.indent(body, pad).rstrip("\n")


def cronjob_spec():
    return f"""\
            type: object
            required: [schedule, jobTemplate]
            properties:
              schedule: {{type: string}}
              timeZone: {{type: string}}
              startingDeadlineSeconds: {INT64}
              concurrencyPolicy: {{type: string, enum: [Allow, Forbid, Replace]}}
              suspend: {{type: boolean}}
              jobTemplate:
                type: object
                properties:
                  metadata:
{block(TEMPLATE_METADATA, 20)}
                  spec:
{job_spec(20)}
              successfulJobsHistoryLimit: {INT32}
              failedJobsHistoryLimit: {INT32}"""


KINDS = [
    # (folder, group, kind, plural, version, spec body at 12 columns)
    ("core", "", "Pod", "pods", "v1", lambda: block(POD_SPEC, 12)),
    ("apps", "apps", "Deployment", "deployments", "v1", deployment_spec),
    ("apps", "apps", "StatefulSet", "statefulsets", "v1", statefulset_spec),
    ("apps", "apps", "DaemonSet", "daemonsets", "v1", daemonset_spec),
    ("apps", "apps", "ReplicaSet", "replicasets", "v1", replicaset_spec),
    ("batch", "batch", "Job", "jobs", "v1", lambda: job_spec(12)),
    ("batch", "batch", "CronJob", "cronjobs", "v1", cronjob_spec),
]


def document(group, kind, plural, version, spec):
    name = plural + ("." + group if group else "")
    return f"""\
# {kind} ({group or "core"}/{version}), from {SOURCE}. Generated by
# scripts/gen_core_schemas.py, which holds the shared PodSpec: edit it there, not here.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {name}}}
spec:
  group: '{group}'
  names: {{kind: {kind}}}
  scope: Namespaced
  versions:
  - name: {version}
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {{type: string}}
          kind: {{type: string}}
          metadata: {{type: object}}
          spec:
{spec}
          status: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..",
                                                      "lib", "schema", "data"))
    args = parser.parse_args()
    for folder, group, kind, plural, version, spec in KINDS:
        os.makedirs(os.path.join(args.out, folder), exist_ok=True)
        with open(os.path.join(args.out, folder, kind + ".yaml"), "w", encoding="utf-8") as f:
            f.write(document(group, kind, plural, version, spec()))


if __name__ == "__main__":
    main()
