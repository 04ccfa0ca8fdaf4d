export declare const CACHE: string;
export declare const IMAGE_BUILD_LOCK: string;
export declare const EARLY_BUILD_PID: string;
export declare const NODE_BASE: string;
export declare const IMAGE: string;
export declare const BUILD_STAGE: string;
export declare const PACKAGES_STAGE: string;
export declare function imageBuildArgs(): { image: string[]; stages: string[][] };
