print("busker")
