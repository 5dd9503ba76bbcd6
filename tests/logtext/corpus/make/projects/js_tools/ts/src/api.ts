import { User, displayName, isAdmin } from "./user";

interface ApiResponse<T> {
  status: number;
  data: T;
}

export async function loadUser(fetcher: (url: string) => Promise<ApiResponse<User>>, id: number): Promise<User> {
  const response = await fetcher(`/users/${id}`);
  if (response.status !== 200) {
    throw new Error(`status ${response.status}`);
  }
  return response.data;
}

export function badge(user: User): string {
  const id: string = user.id;
  return `${displayName(user)}${isAdmin(user) ? " (admin)" : ""} #${id}`;
}

export function emails(users: User[]): string[] {
  return users.map((u) => u.mail);
}
