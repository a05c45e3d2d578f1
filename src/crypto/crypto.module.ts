import { type DynamicModule, Global, Module } from '@nestjs/common';
import { parseEncryptionKeys, SecretBox } from './secret-box';

@Global()
@Module({})
export class CryptoModule {
  static forRoot(encryptionKeys: string): DynamicModule {
    return {
      module: CryptoModule,
      providers: [
        { provide: SecretBox, useValue: new SecretBox(parseEncryptionKeys(encryptionKeys)) },
      ],
      exports: [SecretBox],
    };
  }
}
