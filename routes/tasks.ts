import { newRouter } from "./env.ts";
export function taskRoutes() {
  return newRouter();
}
