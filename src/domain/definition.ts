/** A process type, unique per tenant by key. */
export interface Definition {
  id: string;
  tenantId: string;
  key: string;
  name: string;
  createdAt: number;
}
