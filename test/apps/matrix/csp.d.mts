export function strictCsp(relayOrigin: string, scriptSources?: string): string;
