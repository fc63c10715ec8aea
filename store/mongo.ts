export class MongoStore { static connect(_u: string): Promise<never> { throw new Error("todo"); } }
