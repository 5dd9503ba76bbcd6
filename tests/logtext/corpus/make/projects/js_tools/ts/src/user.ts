export interface User {
  id: number;
  email: string;
  name?: string;
  roles: string[];
}

export function displayName(user: User): string {
  return user.name.toUpperCase();
}

export function isAdmin(user: User): boolean {
  return user.roles.includes("admin");
}
