import { labelSelectorMessage, objectMetaMessage, protobufMessage, protobufString, protobufStrings, type ProtobufMessage } from '@plat/server';

// rbac.authorization.k8s.io/v1 generated.proto field numbers of the four kinds.
const policyRule: ProtobufMessage = {
  1: protobufStrings('verbs'),
  2: protobufStrings('apiGroups'),
  3: protobufStrings('resources'),
  4: protobufStrings('resourceNames'),
  5: protobufStrings('nonResourceURLs'),
};

export const roleMessage: ProtobufMessage = { 1: protobufMessage('metadata', objectMetaMessage), 2: protobufMessage('rules', policyRule, true) };

export const clusterRoleMessage: ProtobufMessage = {
  ...roleMessage,
  3: protobufMessage('aggregationRule', { 1: protobufMessage('clusterRoleSelectors', labelSelectorMessage, true) }),
};

/** RoleBinding and ClusterRoleBinding share their fields. */
export const bindingMessage: ProtobufMessage = {
  1: protobufMessage('metadata', objectMetaMessage),
  2: protobufMessage('subjects', { 1: protobufString('kind'), 2: protobufString('apiGroup'), 3: protobufString('name'), 4: protobufString('namespace') }, true),
  3: protobufMessage('roleRef', { 1: protobufString('apiGroup'), 2: protobufString('kind'), 3: protobufString('name') }),
};
