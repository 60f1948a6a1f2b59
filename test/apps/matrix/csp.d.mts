export function strictCsp(relayOrigin: string, scriptSources?: string, styleSources?: string): string;
