/** The subset of OpenAPI (v2 definitions / v3 schemas) the server publishes and reads. */
export interface OpenApiSchema {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  required?: string[];
  $ref?: string;
  allOf?: OpenApiSchema[];
  default?: unknown;
  enum?: unknown[];
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'body' | 'header';
  description?: string;
  type?: string;
  required?: boolean;
  uniqueItems?: boolean;
  schema?: OpenApiSchema;
}
